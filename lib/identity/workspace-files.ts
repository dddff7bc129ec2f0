// The identity files a worker writes into the agent's workspace (current,
// non-deleted versions), for the task bundle.
import "server-only";
import { IDENTITY_FILE_NAMES, IDENTITY_KINDS, type IdentityKind } from "@/lib/contracts/identity";
import { db } from "@/lib/db";
import { isLive } from "./versions";

export type WorkspaceFile = { kind: IdentityKind; path: string; content: string; versionId: string | null };

export async function getWorkspaceFiles({ agentId }: { agentId: string }): Promise<WorkspaceFile[]> {
  const files = await db.identityFile.findMany({ where: { agentId }, include: { currentVersion: true } });
  const byKind = new Map(files.map((file) => [file.kind, file]));
  return IDENTITY_KINDS.flatMap((kind) => {
    const current = byKind.get(kind)?.currentVersion;
    return isLive(current) ? [{ kind, path: IDENTITY_FILE_NAMES[kind], content: current.content, versionId: current.id }] : [];
  });
}
