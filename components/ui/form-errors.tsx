"use client";

// What a form does when it is refused: the first problem is brought into view and
// its field focused. On a phone a dialog's form is taller than the screen and the
// submit button is at its foot, so a message under the first field, or at the top,
// would otherwise appear where the user cannot see it, and nothing seems to happen.
import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { cn } from "./cn";

const PROBLEM = '[data-form-error], [aria-invalid="true"], [data-field-error]';

/**
 * `ref` goes on the form; `reveal()` after setting its errors. Once they are on
 * screen, the first of them in the form (a FormError, an invalid control, or a
 * Field's message without one) is scrolled into view with its label, and an invalid
 * control is focused, so typing corrects it at once.
 */
export function useRevealFirstError<T extends HTMLElement = HTMLFormElement>() {
  const ref = useRef<T>(null);
  const [requests, setRequests] = useState(0);
  useEffect(() => {
    if (requests === 0) return;
    const problem = ref.current?.querySelector<HTMLElement>(PROBLEM);
    if (!problem) return;
    if (problem.matches("input, select, textarea")) problem.focus({ preventScroll: true });
    (problem.closest<HTMLElement>("[data-field]") ?? problem).scrollIntoView({ block: "nearest" });
  }, [requests]);
  const reveal = useCallback(() => setRequests((count) => count + 1), []);
  return { ref, reveal };
}

/** A problem with the form as a whole (not one field), shown at its top. */
export function FormError({ children, className, testId }: { children: ReactNode; className?: string; testId?: string }) {
  return (
    <p
      className={cn("rounded-md border border-danger/40 bg-danger/10 px-3 py-2 text-sm text-danger", className)}
      role="alert"
      data-form-error
      data-testid={testId}
    >
      {children}
    </p>
  );
}
