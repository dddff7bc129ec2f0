// The app's own "not found" and "something broke" pages: a card in the app's look
// saying what happened, with a way back (and, for errors, a retry).
import Link from "next/link";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";

export function StatusPanel({
  code,
  title,
  children,
  href = "/",
  linkLabel = "Back to the dashboard",
  linkTestId = "status-home-link",
  actions,
}: {
  code: string;
  title: string;
  children: ReactNode;
  href?: string;
  linkLabel?: string;
  linkTestId?: string;
  actions?: ReactNode;
}) {
  return (
    <div className="mx-auto w-full max-w-md py-10" data-testid="status-page">
      <div className="rounded-lg border border-border bg-panel px-6 py-8 text-center">
        <p className="font-mono text-sm font-semibold text-accent">{code}</p>
        <h1 className="mt-2 text-xl font-semibold tracking-tight">{title}</h1>
        <div className="mt-2 text-sm text-fg-muted">{children}</div>
        <div className="mt-6 flex flex-wrap items-center justify-center gap-2">
          {actions}
          <Link
            href={href}
            className="inline-flex h-9 items-center rounded-md bg-accent px-4 text-sm font-medium text-accent-fg hover:opacity-90 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
            data-testid={linkTestId}
          >
            {linkLabel}
          </Link>
        </div>
      </div>
    </div>
  );
}

/** Outside the app shell (an unknown address): the brand above the card. */
export function StandaloneStatus({ children }: { children: ReactNode }) {
  return (
    <div className="grid min-h-screen place-items-center px-4">
      <div className="w-full max-w-md">
        <div className="flex items-center justify-center gap-2">
          <div className="grid size-8 place-items-center rounded-md bg-accent font-bold text-accent-fg">S</div>
          <span className="text-lg font-semibold tracking-tight">Swarmdeck</span>
        </div>
        {children}
      </div>
    </div>
  );
}

/** The error boundary's panel (app/error.tsx, and inside the shell app/(dashboard)/error.tsx). */
export function ErrorPanel({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <StatusPanel
      code="Error"
      title="Something went wrong"
      actions={
        <Button variant="secondary" onClick={reset}>
          Try again
        </Button>
      }
    >
      This page failed to load.{error.digest ? ` (reference ${error.digest})` : ""}
    </StatusPanel>
  );
}
