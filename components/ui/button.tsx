"use client";
import { type ButtonHTMLAttributes, useSyncExternalStore } from "react";
import { cn } from "./cn";

const neverChanges = () => () => {};

/** False in the server's HTML and while React hydrates it, true from then on (and at once on a page opened within the app). */
function useScriptsRunning(): boolean {
  return useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );
}

type Variant = "primary" | "secondary" | "ghost" | "danger";
type Size = "sm" | "md";

const VARIANTS: Record<Variant, string> = {
  primary: "bg-accent text-accent-fg hover:opacity-90 border border-transparent",
  secondary: "bg-panel text-fg border border-border hover:bg-muted",
  ghost: "text-fg-muted hover:text-fg hover:bg-muted border border-transparent",
  danger: "bg-danger-solid text-white hover:opacity-90 border border-transparent",
};

const SIZES: Record<Size, string> = { sm: "h-8 px-3 text-sm", md: "h-9 px-4 text-sm" };

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: Size; busy?: boolean };

export function Button({ variant = "primary", size = "md", busy, className, disabled, children, type = "button", ...props }: ButtonProps) {
  // A button whose action is its onClick does nothing until the page's scripts run, so
  // until then it is shown disabled rather than swallowing a click (a slow network, a
  // quick user). Submit buttons are left as they are: a form held before the scripts
  // is the form's own case (e2e/hydration.spec.ts).
  const scriptsRunning = useScriptsRunning();
  const waitingForScripts = !scriptsRunning && type === "button" && props.onClick !== undefined;
  return (
    <button
      type={type}
      disabled={disabled || busy || waitingForScripts}
      aria-busy={busy || undefined}
      className={cn(
        "inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent disabled:cursor-not-allowed disabled:opacity-50",
        VARIANTS[variant],
        SIZES[size],
        className,
      )}
      {...props}
    >
      {busy ? <span className="size-3.5 animate-spin rounded-full border-2 border-current border-t-transparent" aria-hidden /> : null}
      {children}
    </button>
  );
}
