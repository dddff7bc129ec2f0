// The "## Feedback from Lead" section of an agent's CLAUDE.md: where a lead's
// learning lands as one bullet line (written as a new version by learnings.ts).

const SECTION = "## Feedback from Lead";

/** The CLAUDE.md content with `line` added at the end of the feedback section (created when missing). */
export function withFeedbackLine(content: string, line: string): string {
  const bullet = `- ${line.replace(/\s+/g, " ").trim()}`;
  const lines = content.replace(/\r\n?/g, "\n").split("\n");
  const start = lines.findIndex((text) => text.trim() === SECTION);
  if (start === -1) {
    const base = content.trimEnd();
    return `${base}${base ? "\n\n" : ""}${SECTION}\n\n${bullet}\n`;
  }
  let end = start + 1;
  while (end < lines.length && !/^#{1,2}\s/.test(lines[end] ?? "")) end++;
  let insertAt = end;
  while (insertAt > start + 1 && (lines[insertAt - 1] ?? "").trim() === "") insertAt--;
  lines.splice(insertAt, 0, bullet);
  return lines.join("\n");
}
