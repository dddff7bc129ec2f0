"use client";

import { type ComponentProps, createContext, type ReactNode, type TextareaHTMLAttributes, useContext } from "react";
import { cn } from "./cn";

const FIELD =
  "w-full rounded-md border border-border bg-panel px-3 text-sm text-fg placeholder:text-fg-muted/70 focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30 disabled:opacity-60 aria-[invalid=true]:border-danger aria-[invalid=true]:focus:ring-danger/30";

/** What a Field tells the control it labels (the one whose id is its htmlFor): whether it is invalid, and what describes it. */
type FieldState = { controlId: string; invalid: boolean; describedBy?: string };
const FieldContext = createContext<FieldState | null>(null);

type AriaProps = { id?: string; "aria-invalid"?: ComponentProps<"input">["aria-invalid"]; "aria-describedby"?: string };

/** aria-invalid and aria-describedby from the surrounding Field; what the caller passes itself wins or is added to. */
function useFieldAria(props: AriaProps): AriaProps {
  const field = useContext(FieldContext);
  if (!field || props.id !== field.controlId) return {};
  const describedBy = [props["aria-describedby"], field.describedBy].filter(Boolean).join(" ");
  return {
    "aria-invalid": props["aria-invalid"] ?? (field.invalid ? true : undefined),
    "aria-describedby": describedBy || undefined,
  };
}

export function Input({ className, ...props }: ComponentProps<"input">) {
  return <input {...props} {...useFieldAria(props)} className={cn(FIELD, "h-9", className)} />;
}

export function Textarea({ className, ...props }: TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <textarea {...props} {...useFieldAria(props)} className={cn(FIELD, "py-2", className)} />;
}

export function Select({ className, ...props }: ComponentProps<"select">) {
  return <select {...props} {...useFieldAria(props)} className={cn(FIELD, "h-9 pr-8", className)} />;
}

/**
 * A label, its control and, under it, the error or else the hint. The Input, Select
 * or Textarea whose id is `htmlFor` is marked aria-invalid while there is an error and
 * described by the message under it. `data-field` and `data-field-error` are what
 * components/ui/form-errors.ts looks for to bring the first refused field into view.
 */
export function Field({
  label,
  hint,
  error,
  htmlFor,
  children,
}: {
  label: string;
  hint?: ReactNode;
  error?: string;
  htmlFor?: string;
  children: ReactNode;
}) {
  const errorId = htmlFor ? `${htmlFor}-error` : undefined;
  const hintId = htmlFor ? `${htmlFor}-hint` : undefined;
  const state: FieldState | null = htmlFor
    ? { controlId: htmlFor, invalid: Boolean(error), describedBy: error ? errorId : hint ? hintId : undefined }
    : null;
  return (
    <div className="space-y-1.5" data-field>
      <label htmlFor={htmlFor} className="block text-sm font-medium text-fg">
        {label}
      </label>
      <FieldContext.Provider value={state}>{children}</FieldContext.Provider>
      {error ? (
        <p id={errorId} className="text-xs text-danger" role="alert" data-field-error>
          {error}
        </p>
      ) : hint ? (
        <p id={hintId} className="text-xs text-fg-muted">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
