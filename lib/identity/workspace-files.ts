// The identity files a worker writes into the agent's workspace (current,
// non-deleted versions), for the task bundle. (Owned by the identity work.)
import "server-only";
import type { IdentityKind } from "@/lib/contracts/identity";

export type WorkspaceFile = { kind: IdentityKind; path: string; content: string; versionId: string | null };

export async function getWorkspaceFiles(_args: { agentId: string }): Promise<WorkspaceFile[]> {
  return [];
}
