// The audit chain's hash, as PostgreSQL computes it in the append statement
// (lib/audit/audit-log.pg.ts): SHA-256 of `["` + the previous hash + `",` + the
// row's tail must be auditHash's own canonical text, for any text a row can hold.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { auditHash, auditHashTail, auditRow, GENESIS_HASH } from "./audit-log";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("auditHashTail", () => {
  const rows = [
    auditRow({ actor: { type: "system", id: null, label: "system" }, action: "user.created" }, 0),
    auditRow(
      {
        actor: { type: "user", id: "u1", label: 'Zoë "the admin" \\ O\'Neil' },
        action: "task.created",
        targetType: "task",
        targetId: "t1",
        agentId: "a1",
        data: { title: "Déploiement ☃ 🚀\nsecond line\ttab", tags: ["naïve", "日本語"], nested: { ok: true, n: 1.5 } },
      },
      1_795_707_167_570,
    ),
    auditRow({ actor: { type: "worker", id: "a2", label: "\u2028line separator\u0001control" }, action: "memory.created" }, 42),
  ];
  const previous = [GENESIS_HASH, sha256("an earlier event")];

  it("makes with the previous hash the text auditHash hashes", () => {
    for (const row of rows) {
      for (const prev of previous) {
        expect(sha256(`["${prev}",${auditHashTail(row)}`)).toBe(auditHash(prev, row));
      }
    }
  });

  it("changes with every field the chain protects", () => {
    const [, row] = rows as [unknown, ReturnType<typeof auditRow>];
    const tails = new Set(
      [
        row,
        { ...row, createdAt: row.createdAt + 1 },
        { ...row, actorLabel: "someone else" },
        { ...row, action: "task.cancelled" },
        { ...row, targetId: "t2" },
        { ...row, agentId: null },
        { ...row, data: "{}" },
      ].map(auditHashTail),
    );
    expect(tails.size).toBe(7);
  });
});
