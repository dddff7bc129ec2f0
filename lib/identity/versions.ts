// The append-only version store: every change to an identity file is a new
// IdentityVersion (number = previous + 1) and an audit event in the same
// transaction. Nothing here updates or deletes a version.
import "server-only";
import { createHash } from "node:crypto";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import { IDENTITY_FILE_NAMES, type IdentityKind, MAX_IDENTITY_BYTES, type VersionSource } from "@/lib/contracts/identity";
import { type Tx, usesPostgres } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import type { IdentityFile, IdentityVersion } from "@/lib/generated/prisma/client";
import { newId } from "@/lib/ids";
import { mergeThreeWay } from "./merge";

export type Author = { type: "operator" | "agent" | "lead" | "system"; id: string | null };
export type FileWithCurrent = IdentityFile & { currentVersion: IdentityVersion | null };

export function sha256(content: string): string {
  return createHash("sha256").update(content, "utf8").digest("hex");
}

export function byteSize(content: string): number {
  return Buffer.byteLength(content, "utf8");
}

export function assertIdentitySize(content: string): void {
  const size = byteSize(content);
  if (size > MAX_IDENTITY_BYTES) {
    throw new ApiError("payload_too_large", `An identity file may hold at most ${MAX_IDENTITY_BYTES} bytes; this one has ${size}`, {
      limit: MAX_IDENTITY_BYTES,
      size,
    });
  }
}

/** A version that holds content (not a deletion record). */
export function isLive(version: IdentityVersion | null | undefined): version is IdentityVersion {
  return Boolean(version && !version.deleted);
}

export function liveContent(file: FileWithCurrent): string {
  return isLive(file.currentVersion) ? file.currentVersion.content : "";
}

/**
 * On PostgreSQL, makes the identity writes of one agent take turns across the
 * cluster until this transaction ends (an advisory lock per agent; taking it again
 * in the same transaction returns at once). Every identity transaction takes it
 * before its first audit append: appendAudit holds the audit chain's lock until
 * commit, so a transaction that waited for an identity lock while holding that one
 * could deadlock with a writer waiting for the audit lock. One lock per agent (not
 * per file) lets a transaction go on to the agent's other files (re-bootstrap,
 * retiring BOOTSTRAP.md) after its audit without waiting. SQLite runs one write
 * transaction at a time already.
 */
export async function lockAgentIdentity(tx: Tx, agentId: string): Promise<void> {
  if (usesPostgres()) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('swarmdeck:identity'), hashtext(${agentId}))`;
}

/**
 * The agent's file of `kind` (created when missing), with its current version. On
 * PostgreSQL under the agent's identity lock (lockAgentIdentity), so each writer
 * reads the version the previous one committed (number = previous + 1, checks
 * against the current version).
 */
export async function ensureFile(tx: Tx, agentId: string, kind: IdentityKind): Promise<FileWithCurrent> {
  if (usesPostgres()) {
    await lockAgentIdentity(tx, agentId);
    await tx.$executeRaw`INSERT INTO "IdentityFile" ("id", "agentId", "kind", "updatedAt")
      VALUES (${newId()}, ${agentId}, ${kind}, now())
      ON CONFLICT ("agentId", "kind") DO NOTHING`;
    return tx.identityFile.findUniqueOrThrow({ where: { agentId_kind: { agentId, kind } }, include: { currentVersion: true } });
  }
  return tx.identityFile.upsert({
    where: { agentId_kind: { agentId, kind } },
    create: { agentId, kind },
    update: {},
    include: { currentVersion: true },
  });
}

export async function appendVersion(
  tx: Tx,
  args: {
    file: FileWithCurrent;
    content: string;
    deleted?: boolean;
    author: Author;
    source: VersionSource;
    reason?: string | null;
    taskId?: string | null;
    actor: Actor;
    action?: string;
    auditData?: Record<string, unknown>;
    audit?: boolean;
  },
): Promise<IdentityVersion> {
  const { file, author } = args;
  const content = args.deleted ? "" : args.content;
  assertIdentitySize(content);
  const last = await tx.identityVersion.findFirst({ where: { fileId: file.id }, orderBy: { number: "desc" }, select: { number: true } });
  const version = await tx.identityVersion.create({
    data: {
      fileId: file.id,
      agentId: file.agentId,
      kind: file.kind,
      number: (last?.number ?? 0) + 1,
      content,
      contentHash: sha256(content),
      size: byteSize(content),
      deleted: args.deleted ?? false,
      parentVersionId: file.currentVersionId,
      authorType: author.type,
      authorId: author.id,
      source: args.source,
      reason: args.reason ?? null,
      taskId: args.taskId ?? null,
    },
  });
  await tx.identityFile.update({ where: { id: file.id }, data: { currentVersionId: version.id } });
  file.currentVersionId = version.id;
  file.currentVersion = version;
  await reclassifyOpenProposals(tx, file, version);
  if (args.audit !== false) {
    await appendAudit(tx, {
      actor: args.actor,
      action: args.action ?? (args.deleted ? "identity.deleted" : "identity.written"),
      targetType: "identity_version",
      targetId: version.id,
      agentId: file.agentId,
      data: {
        kind: file.kind,
        file: IDENTITY_FILE_NAMES[file.kind as IdentityKind],
        number: version.number,
        source: args.source,
        authorType: author.type,
        authorId: author.id,
        reason: args.reason ?? null,
        contentHash: version.contentHash,
        size: version.size,
        deleted: version.deleted,
        ...args.auditData,
      },
    });
  }
  return version;
}

/**
 * The file moved on: each open proposal for it is a `conflict` exactly when its change
 * no longer merges cleanly onto the new version (three-way, from the version it was
 * based on), else `pending`. One classification, kept in the row, so the review list,
 * its tabs and counts, and the proposal's own page all say the same.
 */
async function reclassifyOpenProposals(tx: Tx, file: FileWithCurrent, current: IdentityVersion): Promise<void> {
  // Index IdentityProposal(agentId, kind, status); a file is one agent's one kind.
  const open = await tx.identityProposal.findMany({
    where: { agentId: file.agentId, kind: file.kind, status: { in: ["pending", "conflict"] } },
    select: { id: true, status: true, proposedContent: true, baseVersion: { select: { id: true, content: true, deleted: true } } },
  });
  for (const proposal of open) {
    const base = proposal.baseVersion && !proposal.baseVersion.deleted ? proposal.baseVersion.content : "";
    const ours = current.deleted ? "" : current.content;
    const merge =
      proposal.baseVersion?.id === current.id
        ? { clean: true, content: proposal.proposedContent }
        : mergeThreeWay({ base, ours, theirs: proposal.proposedContent });
    const status = merge.clean ? "pending" : "conflict";
    if (status !== proposal.status) {
      await tx.identityProposal.update({ where: { id: proposal.id }, data: { status, mergedContent: merge.content } });
    }
  }
}

export type BaseCheck =
  | { ok: true; content: string; merged: boolean }
  | { ok: false; mergedContent: string | null; current: IdentityVersion | null };

/**
 * Does `baseVersionId` still describe the file? When the file moved on, a clean
 * three-way merge (base → current, base → incoming) is accepted instead.
 */
export async function checkBase(tx: Tx, file: FileWithCurrent, baseVersionId: string | null, content: string): Promise<BaseCheck> {
  const current = file.currentVersion;
  if (baseVersionId === (current?.id ?? null)) return { ok: true, content, merged: false };
  if (baseVersionId === null) {
    // No base: fine only when there is nothing to overwrite.
    return isLive(current) ? { ok: false, mergedContent: null, current } : { ok: true, content, merged: false };
  }
  const base = await tx.identityVersion.findFirst({ where: { id: baseVersionId, fileId: file.id } });
  if (!base) {
    throw new ApiError(
      "bad_request",
      `baseVersionId ${baseVersionId} is not a version of ${IDENTITY_FILE_NAMES[file.kind as IdentityKind]}`,
      {
        field: "baseVersionId",
      },
    );
  }
  const merge = mergeThreeWay({ base: base.deleted ? "" : base.content, ours: liveContent(file), theirs: content });
  return merge.clean ? { ok: true, content: merge.content, merged: true } : { ok: false, mergedContent: merge.content, current };
}

export function staleBase(file: FileWithCurrent, extra: Record<string, unknown> = {}): ApiError {
  const current = file.currentVersion;
  return new ApiError(
    "stale_base",
    `${IDENTITY_FILE_NAMES[file.kind as IdentityKind]} changed since your base version (now version ${current?.number ?? 0}) and the changes do not merge cleanly`,
    { currentVersionId: current?.id ?? null, currentVersionNumber: current?.number ?? null, ...extra },
  );
}
