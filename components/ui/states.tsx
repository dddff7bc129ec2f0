import { AlertTriangle } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "./cn";

export function Spinner({ className }: { className?: string }) {
  return (
    <span
      className={cn("inline-block size-4 animate-spin rounded-full border-2 border-fg-muted border-t-transparent", className)}
      aria-hidden
    />
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="flex items-center gap-2 px-4 py-8 text-sm text-fg-muted" role="status">
      <Spinner /> {label}
    </div>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="flex flex-col items-center justify-center gap-2 px-6 py-12 text-center" data-testid="empty-state">
      <p className="text-sm font-medium">{title}</p>
      {children ? <div className="max-w-md text-sm text-fg-muted">{children}</div> : null}
      {action ? <div className="mt-2">{action}</div> : null}
    </div>
  );
}

export function ErrorState({ error }: { error: unknown }) {
  const message = error instanceof Error ? error.message : "Something went wrong";
  return (
    <div className="m-4 rounded-md border border-danger/40 bg-danger/10 px-4 py-3 text-sm text-danger" role="alert">
      {message}
    </div>
  );
}

/**
 * A save refused because someone else saved first: the message and what the operator
 * can do about it. The message keeps at least 16rem, so on a phone the actions go
 * on a line of their own instead of squeezing it into a column a word wide.
 */
export function ConflictNotice({
  children,
  actions,
  className,
  testId,
}: {
  children: ReactNode;
  actions: ReactNode;
  className?: string;
  testId: string;
}) {
  return (
    <div
      className={cn("flex flex-wrap items-center gap-3 border-danger/30 bg-danger/10 px-3 py-2 text-sm", className)}
      role="alert"
      data-testid={testId}
    >
      <p className="flex min-w-[16rem] flex-1 items-start gap-3">
        <AlertTriangle className="mt-0.5 size-4 shrink-0 text-danger" aria-hidden />
        <span className="min-w-0">{children}</span>
      </p>
      <div className="flex flex-wrap gap-2">{actions}</div>
    </div>
  );
}
