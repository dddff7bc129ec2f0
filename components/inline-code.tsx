// Text written with `code` spans in backticks (as in a template's summary), shown with
// the spans as <code> and no backticks. An unpaired backtick stays as typed.
import { Fragment } from "react";
import { cn } from "./ui/cn";

export function InlineCode({ text, codeClassName }: { text: string; codeClassName?: string }) {
  const parts = text.split("`");
  // An even number of parts means an unpaired backtick: its last part is plain text after a backtick.
  const unpaired = parts.length % 2 === 0;
  return (
    <>
      {parts.map((part, index) => {
        const key = `${index}:${part}`;
        if (index % 2 === 0) return <Fragment key={key}>{part}</Fragment>;
        if (unpaired && index === parts.length - 1) return <Fragment key={key}>{`\`${part}`}</Fragment>;
        return (
          <code key={key} className={cn("rounded bg-muted px-1 py-px font-mono text-[0.95em]", codeClassName)}>
            {part}
          </code>
        );
      })}
    </>
  );
}
