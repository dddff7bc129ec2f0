"use client";

import { useSearchParams } from "next/navigation";
import { useEffect, useRef } from "react";

/**
 * Keeps a page's filters and its URL in step, both ways.
 *
 * - `view`: the query string the page's state stands for (defaults left out). When it
 *   changes, the URL is replaced with it, through Next's router (history state
 *   `null`), so a later link, Back or Forward compares against the URL as shown.
 * - `served`: the query string the server rendered the page for, in the same form.
 * - `canonical`: a URL query as `view` would write it (unknown values dropped).
 * - `adopt`: sets the page's state from a URL query. It is called when the URL moves
 *   without the page writing it: a link to the same page with other filters (the
 *   sidebar's), or Back or Forward to an entry whose filters differ from the page's.
 */
export function useUrlView(
  view: string,
  served: string,
  canonical: (query: URLSearchParams) => string,
  adopt: (query: URLSearchParams) => void,
): void {
  // Next's view of the query only tells when to look: it can lag behind the writes
  // below (its router updates in a transition, after a fast typist's next keystroke),
  // so the address bar itself is read.
  const trigger = useSearchParams().toString();
  // The URL's filters as last seen or written: a change from these that the page did
  // not make is a navigation.
  const seen = useRef(served);
  // Only the URL and the view drive this; canonical and adopt are read as they are.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    const inUrl = canonical(query);
    if (inUrl !== seen.current) {
      seen.current = inUrl;
      if (inUrl !== view) {
        adopt(query);
        return;
      }
    }
    if (query.toString() !== view) {
      seen.current = view;
      window.history.replaceState(null, "", view ? `${window.location.pathname}?${view}` : window.location.pathname);
    }
  }, [trigger, view]);
}
