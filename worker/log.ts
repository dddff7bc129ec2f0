// One readable line per step: time, the task it belongs to, what happened.
export type Logger = {
  info(message: string, taskId?: string | null): void;
  warn(message: string, taskId?: string | null): void;
  error(message: string, taskId?: string | null): void;
};

function line(level: string, message: string, taskId?: string | null) {
  const time = new Date().toISOString().slice(11, 23);
  const task = taskId ? ` task=${taskId}` : "";
  return `${time} ${level}${task} ${message}`;
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
