// What the session summary (reference 001, P4) is made from: for Claude Code, the
// session transcript it writes itself (JSONL, one record per line, under
// $CLAUDE_CONFIG_DIR/projects/<working directory with every non-alphanumeric
// character as "-">/<session id>.jsonl; records of type "user" and "assistant"
// carry `message.content`, a string or blocks of type text / tool_use /
// tool_result / thinking); for any other agent, its captured output. The result
// is a plain-text transcript, bounded, for the app's summary model.
import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { readHomeFile } from "./workspace";

/** The most of a transcript sent to the app: its beginning (the task) and its end (the outcome). */
export const MAX_TRANSCRIPT_CHARS = 60_000;
const BLOCK_CHARS = 1_500;

export type SessionTranscript = { source: "claude_transcript" | "output"; transcript: string };

export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  // Claude Code's own rule: $CLAUDE_CONFIG_DIR, else ~/.claude of the HOME it runs with (the
  // agent's user's, with AGENT_USER: worker/agent-user.ts), not the worker's.
  return env.CLAUDE_CONFIG_DIR?.trim() || path.join(env.HOME?.trim() || homedir(), ".claude");
}

/** The most of one transcript file read; what is sent is bounded to MAX_TRANSCRIPT_CHARS after. */
const MAX_TRANSCRIPT_FILE_BYTES = 64 * 1024 * 1024;

/** Claude Code's project folder name for a working directory. */
export function claudeProjectFolder(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

/** The transcripts Claude Code wrote for this working directory since `since` (ms), oldest first. */
export async function findClaudeTranscripts({ cwd, since, env }: { cwd: string; since: number; env?: NodeJS.ProcessEnv }) {
  const folder = path.join(claudeConfigDir(env), "projects", claudeProjectFolder(cwd));
  if (!existsSync(folder)) return [];
  const found: Array<{ file: string; mtimeMs: number }> = [];
  for (const name of await readdir(folder)) {
    if (!name.endsWith(".jsonl")) continue;
    const file = path.join(folder, name);
    const info = await stat(file);
    if (info.isFile() && info.mtimeMs >= since - 1_000) found.push({ file, mtimeMs: info.mtimeMs });
  }
  return found.sort((a, b) => a.mtimeMs - b.mtimeMs).map((entry) => entry.file);
}

const clip = (text: string, max = BLOCK_CHARS) => (text.length <= max ? text : `${text.slice(0, max)} [...]`);

function blockText(block: unknown): string | null {
  if (typeof block === "string") return block;
  if (!block || typeof block !== "object") return null;
  const b = block as { type?: string; text?: string; name?: string; input?: unknown; content?: unknown; is_error?: boolean };
  switch (b.type) {
    case "text":
      return typeof b.text === "string" ? b.text : null;
    case "tool_use":
      return `[tool ${b.name ?? "?"}] ${clip(JSON.stringify(b.input ?? {}), 500)}`;
    case "tool_result": {
      const content = Array.isArray(b.content) ? b.content.map(blockText).filter(Boolean).join("\n") : String(b.content ?? "");
      return `[tool result${b.is_error ? ", error" : ""}] ${clip(content, 800)}`;
    }
    default:
      // thinking blocks and anything newer are left out: the summary is about what was done and learned.
      return null;
  }
}

/** One readable line per message of a Claude Code JSONL transcript; unreadable lines are skipped. */
export function readableClaudeTranscript(jsonl: string): string {
  const lines: string[] = [];
  for (const raw of jsonl.split("\n")) {
    if (!raw.trim()) continue;
    let record: { type?: string; message?: { role?: string; content?: unknown }; isMeta?: boolean };
    try {
      record = JSON.parse(raw);
    } catch {
      continue;
    }
    if ((record.type !== "user" && record.type !== "assistant") || record.isMeta) continue;
    const content = record.message?.content;
    const parts = (Array.isArray(content) ? content : [content]).map(blockText).filter((part): part is string => Boolean(part?.trim()));
    if (parts.length) lines.push(`${record.type === "user" ? "User" : "Assistant"}: ${clip(parts.join("\n"))}`);
  }
  return lines.join("\n\n");
}

/** Keeps the head and the tail of a long text, with a visible marker between. */
export function bounded(text: string, max = MAX_TRANSCRIPT_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 3);
  return `${text.slice(0, head)}\n\n[... ${text.length - max} characters left out ...]\n\n${text.slice(text.length - (max - head))}`;
}

/** The session to summarise: Claude Code's own transcript(s) of this task when it wrote any, else the captured output. */
export async function sessionTranscript({
  harness,
  cwd,
  since,
  output,
  env,
}: {
  harness: "command" | "claude";
  cwd: string;
  since: number;
  output: string;
  env?: NodeJS.ProcessEnv;
}): Promise<SessionTranscript | null> {
  if (harness === "claude") {
    const files = await findClaudeTranscripts({ cwd, since, env }).catch(() => []);
    const texts: string[] = [];
    // The agent owns its config folder: a transcript is read only if it really is a file in
    // there (no symlink to a file of the worker's, such as its /proc environment).
    const within = claudeConfigDir(env);
    for (const file of files) {
      const text = await readHomeFile(within, file, MAX_TRANSCRIPT_FILE_BYTES).catch(() => null);
      if (text) texts.push(readableClaudeTranscript(text));
    }
    const transcript = texts.filter(Boolean).join("\n\n---\n\n");
    if (transcript.trim()) return { source: "claude_transcript", transcript: bounded(transcript) };
  }
  return output.trim() ? { source: "output", transcript: bounded(output.trim()) } : null;
}
