// The token lookups of principal.ts on the PostgreSQL store.
import "server-only";
import { pgSql } from "@/lib/pg";
import type { ApiTokenRow, TokenRows, WorkerTokenRow } from "./principal";

export const pgTokenRows: TokenRows = {
  apiToken: (tokenHash) =>
    pgSql().get<ApiTokenRow>(
      `SELECT t."id", t."userId", t."lastUsedAt", t."revokedAt", u."email", u."role", u."disabledAt"
       FROM "ApiToken" t JOIN "User" u ON u."id" = t."userId" WHERE t."tokenHash" = $1`,
      [tokenHash],
    ),
  touchApiToken: (id) => pgSql().run('UPDATE "ApiToken" SET "lastUsedAt" = $1 WHERE "id" = $2', [new Date(), id]),
  workerToken: (tokenHash) =>
    pgSql().get<WorkerTokenRow>(
      `SELECT w."id", w."lastUsedAt", w."revokedAt", a."id" AS "agentId", a."name", a."role", a."securityProfile", a."archivedAt"
       FROM "WorkerToken" w JOIN "Agent" a ON a."id" = w."agentId" WHERE w."tokenHash" = $1`,
      [tokenHash],
    ),
  touchWorkerToken: (id) => pgSql().run('UPDATE "WorkerToken" SET "lastUsedAt" = $1 WHERE "id" = $2', [new Date(), id]),
};
