"use client";

import * as AlertDialogPrimitive from "@radix-ui/react-alert-dialog";
import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { type ReactNode, useEffect, useState } from "react";
import { Button } from "./button";
import { cn } from "./cn";

// Above everything the app shell pins (header z-30, sidebar and its drawer up to z-50).
const OVERLAY = "fixed inset-0 z-[60] bg-black/50 backdrop-blur-[1px]";
const CONTENT =
  "fixed left-1/2 top-1/2 z-[70] max-h-[90vh] w-[calc(100vw-2rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg border border-border bg-panel p-5 shadow-xl focus:outline-none";

const DISCARD_MESSAGE = "Discard what you entered in this dialog?";

/**
 * A modal dialog. Once something has been typed or chosen in it, closing it with
 * Escape, a click outside or the close button asks first (the browser's confirm, as
 * the page guard in components/unsaved-guard.tsx does); the form's own Cancel button
 * and a successful submit close it without asking.
 */
export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  children,
  className,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const [touched, setTouched] = useState(false);
  // Every opening starts clean.
  useEffect(() => {
    if (open) setTouched(false);
  }, [open]);
  const handleOpenChange = (next: boolean) => {
    if (!next && touched && !window.confirm(DISCARD_MESSAGE)) return;
    onOpenChange(next);
  };
  return (
    <DialogPrimitive.Root open={open} onOpenChange={handleOpenChange}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className={OVERLAY} />
        <DialogPrimitive.Content className={cn(CONTENT, "max-w-lg", className)} onInput={() => setTouched(true)}>
          <DialogPrimitive.Close
            className="absolute top-3 right-3 rounded-md p-1.5 text-fg-muted hover:bg-muted hover:text-fg"
            aria-label="Close"
            data-testid="dialog-close"
          >
            <X className="size-4" aria-hidden />
          </DialogPrimitive.Close>
          <DialogPrimitive.Title className="pr-8 text-base font-semibold">{title}</DialogPrimitive.Title>
          {description ? (
            <DialogPrimitive.Description className="mt-1 text-sm text-fg-muted">{description}</DialogPrimitive.Description>
          ) : (
            <DialogPrimitive.Description className="sr-only">{title}</DialogPrimitive.Description>
          )}
          <div className="mt-4">{children}</div>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}

/** A confirmation that names what will happen; the confirm button carries the action's name. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  cancelLabel = "Cancel",
  destructive,
  busy,
  onConfirm,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  /** The dismiss button's label: when the action is itself a cancel, say what is kept ("Keep task"). */
  cancelLabel?: string;
  destructive?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  children?: ReactNode;
}) {
  return (
    <AlertDialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      <AlertDialogPrimitive.Portal>
        <AlertDialogPrimitive.Overlay className={OVERLAY} />
        <AlertDialogPrimitive.Content className={cn(CONTENT, "max-w-md")}>
          <AlertDialogPrimitive.Title className="text-base font-semibold">{title}</AlertDialogPrimitive.Title>
          <AlertDialogPrimitive.Description asChild>
            <div className="mt-2 text-sm text-fg-muted">{description}</div>
          </AlertDialogPrimitive.Description>
          {children}
          <div className="mt-5 flex justify-end gap-2">
            <AlertDialogPrimitive.Cancel asChild>
              <Button variant="secondary" data-testid="confirm-dismiss">
                {cancelLabel}
              </Button>
            </AlertDialogPrimitive.Cancel>
            <Button variant={destructive ? "danger" : "primary"} busy={busy} onClick={onConfirm} data-testid="confirm-action">
              {confirmLabel}
            </Button>
          </div>
        </AlertDialogPrimitive.Content>
      </AlertDialogPrimitive.Portal>
    </AlertDialogPrimitive.Root>
  );
}

/** The Cancel / submit row at the foot of a dialog's form. */
export function FormActions({
  onCancel,
  submitLabel,
  busy,
  danger,
  disabled,
  className,
  testId,
}: {
  onCancel: () => void;
  submitLabel: string;
  busy?: boolean;
  danger?: boolean;
  disabled?: boolean;
  className?: string;
  testId?: string;
}) {
  return (
    <div className={cn("flex justify-end gap-2", className)}>
      <Button variant="secondary" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" variant={danger ? "danger" : "primary"} busy={busy} disabled={disabled} data-testid={testId}>
        {submitLabel}
      </Button>
    </div>
  );
}
