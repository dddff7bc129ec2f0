"use client";

// Guards every way out of a page that holds unsaved text: a reload or closing the
// tab (beforeunload), in-app links anywhere on the page (the sidebar, "← Agents"),
// and the browser's Back button. Links are checked in the capture phase, before
// next/link handles the click, with the browser's own confirm dialog, so a "stay"
// answer leaves the page and its editors exactly as they were.
import { useEffect, useRef } from "react";

const DEFAULT_MESSAGE = "You have unsaved changes. Leave this page and lose them?";

export function useUnsavedChangesGuard(dirty: boolean, message: string = DEFAULT_MESSAGE) {
  const messageRef = useRef(message);
  messageRef.current = message;
  // Declared before the guard below so that, on unmount, this cleanup runs first.
  const unmounted = useRef(false);
  useEffect(() => {
    unmounted.current = false;
    return () => {
      unmounted.current = true;
    };
  }, []);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = "";
    };
    const onClick = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const anchor = (event.target as Element | null)?.closest?.("a[href]");
      if (!(anchor instanceof HTMLAnchorElement) || anchor.target === "_blank" || anchor.hasAttribute("download")) return;
      const url = new URL(anchor.href, window.location.href);
      if (url.origin !== window.location.origin) return;
      if (url.pathname === window.location.pathname && url.search === window.location.search) return;
      if (!window.confirm(messageRef.current)) {
        event.preventDefault();
        event.stopPropagation();
      }
    };
    // Back: an extra entry for this same URL is pushed while there are unsaved
    // changes, so Back first lands on this page again and can ask.
    let leaving = false;
    window.history.pushState(window.history.state, "", window.location.href);
    let guardOnTop = true;
    const onPopState = () => {
      if (leaving || !guardOnTop) return;
      guardOnTop = false;
      if (window.confirm(messageRef.current)) {
        leaving = true;
        window.history.back();
      } else {
        window.history.pushState(window.history.state, "", window.location.href);
        guardOnTop = true;
      }
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    document.addEventListener("click", onClick, true);
    window.addEventListener("popstate", onPopState);
    const href = window.location.href;
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      document.removeEventListener("click", onClick, true);
      window.removeEventListener("popstate", onPopState);
      // Saved or discarded while still on the page: drop the extra entry again.
      if (guardOnTop && !leaving && !unmounted.current && window.location.href === href) window.history.back();
    };
  }, [dirty]);
}
