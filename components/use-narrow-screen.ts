"use client";

import { useSyncExternalStore } from "react";

// Tailwind's sm breakpoint: below it the layout is a phone's.
const PHONE = "(max-width: 639.98px)";

const subscribe = (onChange: () => void) => {
  const query = window.matchMedia(PHONE);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
};

/**
 * Whether the screen is phone-narrow, for what CSS cannot switch (a placeholder's
 * text). The server, and the first render after it, say no.
 */
export function useNarrowScreen(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(PHONE).matches,
    () => false,
  );
}
