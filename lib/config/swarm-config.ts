// Swarm configuration (SwarmConfig rows). (Extended by the foundation work:
// listing, writing, encryption of secrets.)
import "server-only";
import { GLOBAL_SETUP_SCRIPT_KEY } from "@/lib/contracts/config";
import { db } from "@/lib/db";

/** The global setup script (scope global, key SETUP_SCRIPT), "" when unset. */
export async function getGlobalSetupScript(): Promise<string> {
  const row = await db.swarmConfig.findUnique({
    where: { scope_scopeId_key: { scope: "global", scopeId: "", key: GLOBAL_SETUP_SCRIPT_KEY } },
  });
  return row?.value ?? "";
}
