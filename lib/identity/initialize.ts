// Gives a new agent its identity files. (Filled in by the identity work: the
// templates under lib/identity/templates become version 1 of each file.)
import "server-only";
import type { Actor } from "@/lib/audit/audit-log";
import type { Tx } from "@/lib/db";
import type { Agent } from "@/lib/generated/prisma/client";

export async function initializeAgentIdentity(_args: { tx: Tx; agent: Agent; actor: Actor }): Promise<void> {}
