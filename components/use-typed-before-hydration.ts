"use client";

import { type RefObject, useLayoutEffect, useRef } from "react";

/**
 * A ref for a controlled box that keeps what was typed (or picked) into it while the
 * page was still the server's HTML. React leaves such a value in the box when it
 * hydrates but does not report it (the React that Next.js ships has its replay of
 * those changes switched off), so the next render would put the state's value back
 * and the text would be lost. The box's value is adopted once, as the page mounts,
 * in a layout effect: before any other render can overwrite it.
 */
export function useTypedBeforeHydration<E extends HTMLInputElement | HTMLSelectElement>(
  value: string,
  setValue: (value: string) => void,
): RefObject<E | null> {
  const ref = useRef<E>(null);
  // Only the value at mount matters; later changes come through onChange.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, at mount
  useLayoutEffect(() => {
    const shown = ref.current?.value;
    if (shown !== undefined && shown !== value) setValue(shown);
  }, []);
  return ref;
}
