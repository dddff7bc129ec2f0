"use client";

// Shows a freshly created token exactly once, with a copy button and a warning:
// the server keeps only its hash.
import { Check, Copy, TriangleAlert } from "lucide-react";
import { type ReactNode, useState } from "react";
import { toast } from "sonner";
import { Button } from "./ui/button";
import { Dialog } from "./ui/dialog";

export function TokenRevealDialog({
  token,
  title,
  onClose,
  children,
}: {
  token: string | null;
  title: string;
  onClose: () => void;
  children?: ReactNode;
}) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    if (!token) return;
    try {
      await navigator.clipboard.writeText(token);
      setCopied(true);
      toast.success("Token copied");
    } catch {
      toast.error("Could not copy: select the token and copy it by hand");
    }
  }
  function close() {
    setCopied(false);
    onClose();
  }
  return (
    <Dialog
      open={token !== null}
      onOpenChange={(open) => {
        if (!open) close();
      }}
      title={title}
    >
      <div className="flex items-start gap-2 rounded-md border border-warn/40 bg-warn/10 px-3 py-2 text-sm text-warn" role="alert">
        <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
        <p>Copy this token now. It is shown only once: Swarmdeck stores only its hash and cannot show it again.</p>
      </div>
      <div className="mt-3 flex items-center gap-2">
        <code
          className="min-w-0 flex-1 overflow-x-auto rounded-md border border-border bg-muted px-3 py-2 font-mono text-xs whitespace-nowrap select-all"
          data-testid="revealed-token"
        >
          {token}
        </code>
        <Button variant="secondary" onClick={copy} aria-label="Copy token" data-testid="copy-token">
          {copied ? <Check className="size-4" aria-hidden /> : <Copy className="size-4" aria-hidden />}
          {copied ? "Copied" : "Copy"}
        </Button>
      </div>
      {children ? <div className="mt-3 text-sm text-fg-muted">{children}</div> : null}
      <div className="mt-5 flex justify-end">
        <Button onClick={close}>I have copied it</Button>
      </div>
    </Dialog>
  );
}
