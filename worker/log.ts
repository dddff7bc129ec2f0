// One readable line per step: time, the task it belongs to, what happened.
export type Logger = {
  info(message: string, taskId?: string | null): void;
  warn(message: string, taskId?: string | null): void;
  error(message: string, taskId?: string | null): void;
};

/**
 * Control characters other than a newline or a tab, shown as escapes. Much of what is
 * logged comes from the agent (a progress note, a give-back's reason, a memory file's
 * name, a setup script's output): raw, an ESC sequence or a carriage return would
 * rewrite the operator's terminal, e.g. put a forged "task completed" over a line.
 * The lines after a message's first are indented, so that every line that starts
 * with a time is one the worker wrote (a memory file's name may hold a newline).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what it finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const visible = (text: string) => text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);

function line(level: string, message: string, taskId?: string | null) {
  const time = new Date().toISOString().slice(11, 23);
  const task = taskId ? ` task=${taskId}` : "";
  return `${time} ${level}${task} ${visible(message).replace(/\n/g, "\n  ")}`;
}

export function createLogger(write: (text: string) => void = (text) => process.stderr.write(text)): Logger {
  return {
    info: (message, taskId) => write(`${line("info ", message, taskId)}\n`),
    warn: (message, taskId) => write(`${line("warn ", message, taskId)}\n`),
    error: (message, taskId) => write(`${line("error", message, taskId)}\n`),
  };
}

/** Bounds text for logs and the wire: keeps the end, marks the cut. */
export function tail(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  return `[... ${cut} characters cut ...]\n${text.slice(cut)}`;
}
