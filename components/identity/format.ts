// Small display helpers for identity screens.

const SOURCE_LABELS: Record<string, string> = {
  editor: "editor",
  api: "API",
  agent_write: "agent write",
  approved_proposal: "approved proposal",
  rollback: "restore",
  session_sync: "session sync",
  bootstrap: "bootstrap",
  template: "template",
};

export function sourceLabel(source: string): string {
  return SOURCE_LABELS[source] ?? source;
}

/** Who asked for a proposal: the agent on its own, or an operator, through a task granted that file (lib/identity/writes.ts). */
export function triggerLabel(trigger: string): string {
  return trigger === "user_request" ? "operator-requested" : "agent-proposed";
}

export function triggerTitle(trigger: string): string {
  return trigger === "user_request"
    ? "Written in a task an operator granted changes to this file; the agent chose to have it reviewed"
    : "The agent proposed this on its own";
}

export function timeAgo(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return days < 30 ? `${days} d ago` : new Date(iso).toLocaleDateString();
}

export function formatBytes(size: number): string {
  return size < 1024 ? `${size} B` : `${(size / 1024).toFixed(1)} KiB`;
}

export function listFiles(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
