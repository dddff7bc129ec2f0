"use client";

import { useLayoutEffect, useRef } from "react";

/**
 * Gives focus back to what opened a dialog (the button pressed) when the dialog
 * closes. The dialogs here are opened from state, not from a dialog trigger, so on
 * their own they leave focus on the page's body. What had focus as `open` turned
 * true is remembered (a layout effect: before the dialog moves focus into itself),
 * and focused again after closing unless focus has gone somewhere else meanwhile or
 * the opener is no longer on the page (e.g. a submit that navigated away).
 */
export function useFocusReturn(open: boolean) {
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (open) {
      const active = document.activeElement;
      opener.current = active instanceof HTMLElement && active !== document.body && !active.closest("[role=dialog]") ? active : null;
      return;
    }
    const target = opener.current;
    opener.current = null;
    if (!target) return;
    const timer = window.setTimeout(() => {
      const now = document.activeElement;
      if (target.isConnected && (!now || now === document.body || !now.isConnected)) target.focus();
    }, 0);
    return () => window.clearTimeout(timer);
  }, [open]);
}
