// Reading identity files and their history for the operator API and the UI.
import "server-only";
import {
  IDENTITY_FILE_NAMES,
  IDENTITY_KINDS,
  IDENTITY_LANGUAGES,
  type IdentityFileDto,
  type IdentityKind,
  type IdentityVersionDto,
} from "@/lib/contracts/identity";
import { db } from "@/lib/db";
import { notFound } from "@/lib/errors";
import type { IdentityVersion } from "@/lib/generated/prisma/client";
import { isAgentLocked } from "./rules";
import { type FileWithCurrent, isLive } from "./versions";

async function requireAgent(agentId: string) {
  const agent = await db.agent.findFirst({ where: { id: agentId, archivedAt: null }, select: { id: true } });
  if (!agent) throw notFound("Agent");
}

function toFileDto(kind: IdentityKind, file: FileWithCurrent | undefined): IdentityFileDto {
  const current = file?.currentVersion ?? null;
  return {
    kind,
    path: IDENTITY_FILE_NAMES[kind],
    language: IDENTITY_LANGUAGES[kind],
    content: isLive(current) ? current.content : "",
    exists: isLive(current),
    versionId: current?.id ?? null,
    versionNumber: current?.number ?? null,
    updatedAt: current?.createdAt.toISOString() ?? null,
    locked: isAgentLocked(kind),
  };
}

export async function listIdentityFiles({ agentId }: { agentId: string }): Promise<IdentityFileDto[]> {
  await requireAgent(agentId);
  const files = await db.identityFile.findMany({ where: { agentId }, include: { currentVersion: true } });
  const byKind = new Map(files.map((file) => [file.kind, file]));
  return IDENTITY_KINDS.map((kind) => toFileDto(kind, byKind.get(kind)));
}

export async function getIdentityFile({ agentId, kind }: { agentId: string; kind: IdentityKind }): Promise<IdentityFileDto> {
  await requireAgent(agentId);
  const file = await db.identityFile.findUnique({ where: { agentId_kind: { agentId, kind } }, include: { currentVersion: true } });
  return toFileDto(kind, file ?? undefined);
}

async function authorLabels(versions: IdentityVersion[]): Promise<(version: IdentityVersion) => string> {
  const userIds = [...new Set(versions.filter((v) => v.authorType === "operator" && v.authorId).map((v) => v.authorId as string))];
  const agentIds = [
    ...new Set(
      versions.filter((v) => (v.authorType === "agent" || v.authorType === "lead") && v.authorId).map((v) => v.authorId as string),
    ),
  ];
  const [users, agents] = await Promise.all([
    userIds.length ? db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true } }) : [],
    agentIds.length ? db.agent.findMany({ where: { id: { in: agentIds } }, select: { id: true, name: true } }) : [],
  ]);
  const names = new Map<string, string>([...users.map((u) => [u.id, u.email] as const), ...agents.map((a) => [a.id, a.name] as const)]);
  return (version) => {
    if (version.authorType === "system") return "Swarmdeck";
    const name = version.authorId ? (names.get(version.authorId) ?? version.authorId) : "unknown";
    return version.authorType === "lead" ? `${name} (lead)` : name;
  };
}

function toVersionDto(version: IdentityVersion, label: string): IdentityVersionDto {
  return {
    id: version.id,
    number: version.number,
    kind: version.kind as IdentityKind,
    authorType: version.authorType,
    authorId: version.authorId,
    authorLabel: label,
    source: version.source,
    reason: version.reason,
    taskId: version.taskId,
    sessionId: version.sessionId,
    deleted: version.deleted,
    size: version.size,
    contentHash: version.contentHash,
    parentVersionId: version.parentVersionId,
    createdAt: version.createdAt.toISOString(),
  };
}

/** Newest first. */
export async function listIdentityVersions({ agentId, kind, limit = 200 }: { agentId: string; kind: IdentityKind; limit?: number }) {
  await requireAgent(agentId);
  const versions = await db.identityVersion.findMany({ where: { agentId, kind }, orderBy: { number: "desc" }, take: limit });
  const label = await authorLabels(versions);
  return versions.map((version) => toVersionDto(version, label(version)));
}

export async function getIdentityVersion({ agentId, kind, versionId }: { agentId: string; kind: IdentityKind; versionId: string }) {
  await requireAgent(agentId);
  const version = await db.identityVersion.findFirst({ where: { id: versionId, agentId, kind } });
  if (!version) throw notFound("Version");
  const label = await authorLabels([version]);
  return { ...toVersionDto(version, label(version)), content: version.content };
}
