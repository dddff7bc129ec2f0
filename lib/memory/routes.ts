// The glue the memory routes share: turning request bodies into NewMemory rows
// and results into the wire shape. Keeps the route files thin.
import "server-only";
import type { z } from "zod";
import { JsonReply } from "@/lib/api/handler";
import type { operatorCreateMemoryBodySchema, workerCreateMemoryBodySchema } from "@/lib/contracts/memory";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import { ensureMemoryJobs } from "./jobs";
import type { NewMemory } from "./memory-store";
import type { SearchResult } from "./search";

/** A workspace-relative path under memory/: no absolute paths, no "..", no odd characters. */
export function checkWorkspacePath(path: string): string {
  const clean = path.replace(/\\/g, "/").replace(/^\.\//, "");
  if (clean.startsWith("/") || clean.split("/").some((part) => part === ".." || part === "") || !/^[\w./ -]+$/.test(clean)) {
    throw new ApiError("validation_failed", "path must be a relative workspace path without '..'", { path });
  }
  return clean;
}

export function workerMemory(body: z.infer<typeof workerCreateMemoryBodySchema>, agentId: string): NewMemory {
  ensureMemoryJobs();
  const path = body.path ? checkWorkspacePath(body.path) : null;
  // Files under memory/shared/ are the swarm's; everything else the agent's own.
  const scope = body.source === "file_index" && path ? (/(^|\/)memory\/shared\//.test(path) ? "swarm" : body.scope) : body.scope;
  return { name: body.name, content: body.content, scope, source: body.source, agentId, taskId: body.taskId ?? null, path };
}

/** The live agents among `ids`, on the PostgreSQL store. */
async function knownAgentsPg(ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { pgSql } = await import("@/lib/pg");
  const rows = await pgSql().all<{ id: string }>('SELECT "id" FROM "Agent" WHERE "id" = ANY($1::text[]) AND "archivedAt" IS NULL', [ids]);
  return new Set(rows.map((row) => row.id));
}

/** The tasks among `ids` that exist, on the PostgreSQL store. */
async function knownTasksPg(ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { pgSql } = await import("@/lib/pg");
  const rows = await pgSql().all<{ id: string }>('SELECT "id" FROM "Task" WHERE "id" = ANY($1::text[])', [ids]);
  return new Set(rows.map((row) => row.id));
}

export async function operatorMemories(body: z.infer<typeof operatorCreateMemoryBodySchema>): Promise<NewMemory[]> {
  ensureMemoryJobs();
  const items = "items" in body ? body.items : [body];
  const agentIds = [...new Set(items.map((item) => item.agentId).filter((id): id is string => Boolean(id)))];
  const taskIds = [...new Set(items.map((item) => item.taskId).filter((id): id is string => Boolean(id)))];
  const known = usesPostgres()
    ? await knownAgentsPg(agentIds)
    : await withSqlite((sqlite) => {
        const find = prepare(sqlite, "SELECT id FROM Agent WHERE id = ? AND archivedAt IS NULL");
        return new Set(agentIds.filter((id) => find.get(id)));
      });
  // A memory's task is shown with it and links to the task: one that does not exist is 404, as an unknown agent is.
  const knownTasks = usesPostgres()
    ? await knownTasksPg(taskIds)
    : await withSqlite((sqlite) => {
        const find = prepare(sqlite, "SELECT id FROM Task WHERE id = ?");
        return new Set(taskIds.filter((id) => find.get(id)));
      });
  return items.map((item, index) => {
    if (item.scope === "agent" && !item.agentId) {
      throw new ApiError("validation_failed", "An agent-scope memory needs agentId", { index });
    }
    if (item.agentId && !known.has(item.agentId)) throw new ApiError("not_found", `Agent ${item.agentId} not found`, { index });
    if (item.taskId && !knownTasks.has(item.taskId)) throw new ApiError("not_found", `Task ${item.taskId} not found`, { index });
    return {
      name: item.name,
      content: item.content,
      scope: item.scope,
      source: item.source,
      agentId: item.agentId ?? null,
      taskId: item.taskId ?? null,
    };
  });
}

// Search answers are a few KB of JSON on a hot path (workers ask before every
// task): `no-transform` keeps the server from gzipping them, which cost both
// sides more CPU than it saved bytes (as for the worker task answers).
const SEARCH_HEADERS = { "cache-control": "no-store, no-transform" };

export function searchAnswer(data: unknown): JsonReply {
  return new JsonReply(200, data, SEARCH_HEADERS);
}

/** The wire shape of a result (scores included; the per-mode parts help explain a score). */
export function toWire(result: SearchResult) {
  return result;
}

export function parseMemoryId(raw: string | undefined): number {
  const id = Number(raw);
  // Memory ids are 32-bit integers on both stores: a larger one names no memory.
  if (!raw || !/^\d{1,10}$/.test(raw) || id < 1 || id > 2 ** 31 - 1) throw new ApiError("not_found", "Memory not found");
  return id;
}
