// Swarm configuration (SwarmConfig rows): scope global | agent | repo, a key and
// a value. Secret values are encrypted at rest (AES-256-GCM, lib/config/encryption)
// and never leave the server through the API; server code reads them with
// getConfigValue. Writing or deleting a secret is for admins only.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { UserRole } from "@/lib/contracts/common";
import { type ConfigEntryDto, GLOBAL_SETUP_SCRIPT_KEY, type PutConfigBody } from "@/lib/contracts/config";
import { db, type Tx } from "@/lib/db";
import { ApiError, forbidden, notFound } from "@/lib/errors";
import type { SwarmConfig } from "@/lib/generated/prisma/client";
import { decryptSecret, encryptSecret } from "./encryption";
import { encryptionKey } from "./secrets";

export type ConfigScope = ConfigEntryDto["scope"];
export type ConfigAddress = { scope: ConfigScope; scopeId?: string; key: string };

function toEntryDto(row: SwarmConfig): ConfigEntryDto {
  return {
    id: row.id,
    scope: row.scope as ConfigScope,
    scopeId: row.scopeId,
    key: row.key,
    value: row.secret ? null : row.value,
    secret: row.secret,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Global entries have no scope id; agent and repo entries need one. */
function normalizedScopeId({ scope, scopeId }: ConfigAddress): string {
  const id = scopeId?.trim() ?? "";
  if (scope === "global" && id !== "") {
    throw new ApiError("validation_failed", "The request is not valid", [{ path: "scopeId", message: "global entries take no scopeId" }]);
  }
  if (scope !== "global" && id === "") {
    throw new ApiError("validation_failed", "The request is not valid", [
      { path: "scopeId", message: `scopeId is required for ${scope} scope` },
    ]);
  }
  return id;
}

function where(address: ConfigAddress) {
  return { scope_scopeId_key: { scope: address.scope, scopeId: normalizedScopeId(address), key: address.key } };
}

export async function listConfig(filter: { scope?: ConfigScope; scopeId?: string; key?: string }): Promise<ConfigEntryDto[]> {
  const rows = await db.swarmConfig.findMany({
    where: { scope: filter.scope, scopeId: filter.scopeId, key: filter.key },
    orderBy: [{ scope: "asc" }, { scopeId: "asc" }, { key: "asc" }],
  });
  return rows.map(toEntryDto);
}

/** A value for server-side use, secrets decrypted; null when unset. */
export async function getConfigValue(address: ConfigAddress & { tx?: Tx }): Promise<string | null> {
  const row = await (address.tx ?? db).swarmConfig.findUnique({ where: where(address) });
  if (!row) return null;
  return row.secret ? decryptSecret(row.value, encryptionKey()) : row.value;
}

/** The global setup script (scope global, key SETUP_SCRIPT), "" when unset. */
export async function getGlobalSetupScript(): Promise<string> {
  return (await getConfigValue({ scope: "global", key: GLOBAL_SETUP_SCRIPT_KEY })) ?? "";
}

async function assertScopeExists(tx: Tx, scope: ConfigScope, scopeId: string) {
  if (scope !== "agent") return;
  const agent = await tx.agent.findFirst({ where: { id: scopeId, archivedAt: null }, select: { id: true } });
  if (!agent) throw notFound("Agent");
}

export async function putConfig({ input, actor, role }: { input: PutConfigBody; actor: Actor; role: UserRole }): Promise<ConfigEntryDto> {
  const scopeId = normalizedScopeId(input);
  const row = await db.$transaction(async (tx) => {
    await assertScopeExists(tx, input.scope, scopeId);
    const before = await tx.swarmConfig.findUnique({ where: where(input) });
    // An update that leaves `secret` out keeps the entry's flag: a secret rotated with a plain PUT stays
    // encrypted and hidden; only an explicit `secret: false` (an admin's) makes it a plain value.
    const secret = input.secret ?? before?.secret ?? false;
    const stored = secret ? encryptSecret(input.value, encryptionKey()) : input.value;
    if ((secret || before?.secret) && role !== "admin") throw forbidden("Only an admin may write a secret config entry");
    // Compared as instants, not as text: any ISO spelling of the base the entry answered is the same base.
    const base = input.baseUpdatedAt === undefined ? undefined : input.baseUpdatedAt === null ? null : Date.parse(input.baseUpdatedAt);
    if (base !== undefined && (before?.updatedAt.getTime() ?? null) !== base) {
      throw new ApiError("stale_base", `${input.key} was changed by someone else since you loaded it`, {
        current: before ? toEntryDto(before) : null,
      });
    }
    const updatedById = actor.id;
    const saved = await tx.swarmConfig.upsert({
      where: where(input),
      create: { scope: input.scope, scopeId, key: input.key, value: stored, secret, updatedById },
      update: { value: stored, secret, updatedById },
    });
    await appendAudit(tx, {
      actor,
      action: before ? "config.updated" : "config.created",
      targetType: "config",
      targetId: saved.id,
      agentId: input.scope === "agent" ? scopeId : null,
      // Never the value itself: secrets stay secret, and setup scripts are versioned elsewhere.
      data: { scope: input.scope, scopeId, key: input.key, secret, length: input.value.length },
    });
    return saved;
  });
  return toEntryDto(row);
}

export async function deleteConfig({ address, actor, role }: { address: ConfigAddress; actor: Actor; role: UserRole }): Promise<void> {
  await db.$transaction(async (tx) => {
    const row = await tx.swarmConfig.findUnique({ where: where(address) });
    if (!row) throw notFound("Config entry");
    if (row.secret && role !== "admin") throw forbidden("Only an admin may delete a secret config entry");
    await tx.swarmConfig.delete({ where: { id: row.id } });
    await appendAudit(tx, {
      actor,
      action: "config.deleted",
      targetType: "config",
      targetId: row.id,
      agentId: row.scope === "agent" ? row.scopeId : null,
      data: { scope: row.scope, scopeId: row.scopeId, key: row.key, secret: row.secret },
    });
  });
}
