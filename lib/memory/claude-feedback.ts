// Appends a line under "## Feedback from Lead" of an agent's CLAUDE.md as a new
// identity version, inside the caller's raw write transaction (so the learning
// memory and the new version land together or not at all). A small stand-in
// for lib/identity's writer; swap it for that once it is on main.
import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { type Actor, appendAuditSync } from "@/lib/audit/audit-log";
import { prepare } from "@/lib/db";

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

function cuidLike(): string {
  return `c${Date.now().toString(36)}${randomBytes(8).toString("hex")}`;
}

export function appendClaudeFeedback(
  sqlite: Database.Database,
  args: { agentId: string; line: string; actor: Actor; authorAgentId: string },
): { versionId: string; number: number } {
  const now = Date.now();
  let file = prepare(sqlite, "SELECT id, currentVersionId FROM IdentityFile WHERE agentId = ? AND kind = 'CLAUDE'").get(args.agentId) as
    | { id: string; currentVersionId: string | null }
    | undefined;
  if (!file) {
    file = { id: cuidLike(), currentVersionId: null };
    prepare(sqlite, "INSERT INTO IdentityFile (id, agentId, kind, createdAt, updatedAt) VALUES (?, ?, 'CLAUDE', ?, ?)").run(
      file.id,
      args.agentId,
      now,
      now,
    );
  }
  const current = file.currentVersionId
    ? (prepare(sqlite, "SELECT id, content, number, deleted FROM IdentityVersion WHERE id = ?").get(file.currentVersionId) as
        | { id: string; content: string; number: number; deleted: number }
        | undefined)
    : undefined;
  const last = prepare(sqlite, "SELECT MAX(number) AS n FROM IdentityVersion WHERE fileId = ?").get(file.id) as { n: number | null };
  const content = withFeedbackLine(current && !current.deleted ? current.content : "", args.line);
  const versionId = cuidLike();
  const number = (last.n ?? 0) + 1;
  prepare(
    sqlite,
    `INSERT INTO IdentityVersion (id, fileId, agentId, kind, number, content, contentHash, size, deleted, parentVersionId,
       authorType, authorId, source, reason, createdAt)
     VALUES (?, ?, ?, 'CLAUDE', ?, ?, ?, ?, 0, ?, 'lead', ?, 'api', ?, ?)`,
  ).run(
    versionId,
    file.id,
    args.agentId,
    number,
    content,
    createHash("sha256").update(content).digest("hex"),
    Buffer.byteLength(content),
    current?.id ?? null,
    args.authorAgentId,
    "Feedback from lead",
    now,
  );
  prepare(sqlite, "UPDATE IdentityFile SET currentVersionId = ?, updatedAt = ? WHERE id = ?").run(versionId, now, file.id);
  appendAuditSync(sqlite, {
    actor: args.actor,
    action: "identity.written",
    targetType: "identity_version",
    targetId: versionId,
    agentId: args.agentId,
    data: { kind: "CLAUDE", number, source: "api", reason: "Feedback from lead" },
  });
  return { versionId, number };
}
