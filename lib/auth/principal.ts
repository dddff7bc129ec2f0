// Who is calling: an operator (browser session or operator API token) or a worker
// (worker token, bound to one agent). The token alone decides; no header naming
// an agent or a user is trusted.
import "server-only";
import { NextRequest } from "next/server";
import { getToken } from "next-auth/jwt";
import type { Actor } from "@/lib/audit/audit-log";
import { authSecret } from "@/lib/config/secrets";
import type { UserRole } from "@/lib/contracts/common";
import { WORKER_TOKEN_PREFIX } from "@/lib/contracts/tokens";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import type { ApiRequest } from "@/lib/http/api-request";
import { usesSecureCookies } from "./cookies";
import { liveSession } from "./operator-sessions";
import { isUserRole } from "./roles";
import { hashToken } from "./secrets";

export type OperatorPrincipal = {
  kind: "user" | "api_token";
  userId: string;
  email: string;
  role: UserRole;
  tokenId: string | null;
  /** The browser session (OperatorSession) for kind "user". */
  sessionId: string | null;
};

export type WorkerPrincipal = {
  kind: "worker";
  tokenId: string;
  agent: { id: string; name: string; role: "lead" | "worker"; securityProfile: "paranoid" | "standard" | "power" };
};

const LAST_USED_EVERY_MS = 60_000;

function bearer(req: ApiRequest): string | null {
  const header = req.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError("unauthorized", "The Authorization header must be 'Bearer <token>'");
  return match[1] ?? null;
}

function touchLater(lastUsedAt: Date | null, update: () => Promise<unknown>) {
  if (lastUsedAt && Date.now() - lastUsedAt.getTime() < LAST_USED_EVERY_MS) return;
  update().catch((error) => console.error("[swarmdeck] could not record token use", error));
}

export async function authenticateOperator(req: ApiRequest): Promise<OperatorPrincipal> {
  const token = bearer(req);
  if (token) {
    if (token.startsWith(WORKER_TOKEN_PREFIX)) {
      throw new ApiError("forbidden", "Worker tokens only work on /api/worker/*; use an operator token or a session");
    }
    // Every token call passes here (memory searches, scripts): one cached raw
    // statement, not a Prisma query with an include (~several ms of query
    // compilation and row mapping per request).
    const tokenHash = hashToken(token);
    const row = await (await tokenRows()).apiToken(tokenHash);
    if (!row || row.revokedAt !== null || row.disabledAt !== null || !isUserRole(row.role)) {
      throw new ApiError("unauthorized", "The API token is not valid or was revoked");
    }
    touchLater(row.lastUsedAt === null ? null : new Date(row.lastUsedAt), async () => (await tokenRows()).touchApiToken(row.id));
    return { kind: "api_token", userId: row.userId, email: row.email, role: row.role, tokenId: row.id, sessionId: null };
  }
  // next-auth reads the session cookie through NextRequest's cookie API. A plain
  // Request, or the fast path's request, gets a body-less NextRequest with its URL and
  // headers: wrapping the Request itself would take its body away from the handler.
  const withCookies = "cookies" in req ? (req as NextRequest) : new NextRequest(req.url, { headers: req.headers });
  const jwt = await getToken({ req: withCookies, secret: authSecret(), secureCookie: usesSecureCookies(req) });
  if (!jwt?.sub) throw new ApiError("unauthorized", "Sign in or send an operator API token");
  // The cookie is only a pointer: the server-side record decides whether the session still lives.
  const session = typeof jwt.sid === "string" ? await liveSession(jwt.sid) : null;
  const user = session?.userId === jwt.sub ? session.user : null;
  if (!session || !user || user.disabledAt || !isUserRole(user.role)) {
    throw new ApiError("unauthorized", "Your session has ended; sign in again");
  }
  return { kind: "user", userId: user.id, email: user.email, role: user.role, tokenId: null, sessionId: session.id };
}

const SESSION_COOKIE = /^(__Secure-)?next-auth\.session-token(\.\d+)?$/;

/** A browser session (next-auth's cookie, plain or __Secure-), whether valid or not. */
function hasSessionCookie(req: ApiRequest): boolean {
  const header = req.headers.get("cookie");
  return !!header && header.split(";").some((pair) => SESSION_COOKIE.test(pair.split("=", 1)[0]?.trim() ?? ""));
}

export async function authenticateWorker(req: ApiRequest): Promise<WorkerPrincipal> {
  const token = bearer(req);
  if (!token) {
    if (hasSessionCookie(req)) {
      throw new ApiError("forbidden", "The worker API takes a worker token only; operator tokens and sessions do not work here");
    }
    throw new ApiError("unauthorized", "Send the agent's worker token as 'Authorization: Bearer <token>'");
  }
  if (!token.startsWith(WORKER_TOKEN_PREFIX)) {
    throw new ApiError("forbidden", "The worker API takes a worker token only; operator tokens and sessions do not work here");
  }
  // Every worker call (polls, heartbeats) passes here: one cached raw statement,
  // not a Prisma query (whose per-call query compilation cost more than the claim itself).
  const tokenHash = hashToken(token);
  const row = await (await tokenRows()).workerToken(tokenHash);
  if (!row || row.revokedAt !== null || row.archivedAt !== null)
    throw new ApiError("unauthorized", "The worker token is not valid or was revoked");
  touchLater(row.lastUsedAt === null ? null : new Date(row.lastUsedAt), async () => (await tokenRows()).touchWorkerToken(row.id));
  return {
    kind: "worker",
    tokenId: row.id,
    agent: {
      id: row.agentId,
      name: row.name,
      role: row.role === "lead" ? "lead" : "worker",
      securityProfile: row.securityProfile as WorkerPrincipal["agent"]["securityProfile"],
    },
  };
}

/** The token lookups every request makes, on either store (the PostgreSQL twin: principal.pg.ts). */
export type TokenRows = {
  apiToken(tokenHash: string): Promise<ApiTokenRow | undefined>;
  touchApiToken(id: string): Promise<unknown>;
  workerToken(tokenHash: string): Promise<WorkerTokenRow | undefined>;
  touchWorkerToken(id: string): Promise<unknown>;
};

const sqliteTokenRows: TokenRows = {
  apiToken: (tokenHash) =>
    withSqlite(
      (sqlite) =>
        prepare(
          sqlite,
          `SELECT t.id, t.userId, t.lastUsedAt, t.revokedAt, u.email, u.role, u.disabledAt
           FROM ApiToken t JOIN User u ON u.id = t.userId WHERE t.tokenHash = ?`,
        ).get(tokenHash) as ApiTokenRow | undefined,
    ),
  touchApiToken: (id) => withSqlite((sqlite) => prepare(sqlite, "UPDATE ApiToken SET lastUsedAt = ? WHERE id = ?").run(Date.now(), id)),
  workerToken: (tokenHash) =>
    withSqlite(
      (sqlite) =>
        prepare(
          sqlite,
          `SELECT w.id, w.lastUsedAt, w.revokedAt, a.id AS agentId, a.name, a.role, a.securityProfile, a.archivedAt
           FROM WorkerToken w JOIN Agent a ON a.id = w.agentId WHERE w.tokenHash = ?`,
        ).get(tokenHash) as WorkerTokenRow | undefined,
    ),
  touchWorkerToken: (id) =>
    withSqlite((sqlite) => prepare(sqlite, "UPDATE WorkerToken SET lastUsedAt = ? WHERE id = ?").run(Date.now(), id)),
};

async function tokenRows(): Promise<TokenRows> {
  return usesPostgres() ? (await import("./principal.pg")).pgTokenRows : sqliteTokenRows;
}

export type ApiTokenRow = {
  id: string;
  userId: string;
  lastUsedAt: number | null;
  revokedAt: number | null;
  email: string;
  role: string;
  disabledAt: number | null;
};

export type WorkerTokenRow = {
  id: string;
  lastUsedAt: number | null;
  revokedAt: number | null;
  agentId: string;
  name: string;
  role: string;
  securityProfile: string;
  archivedAt: number | null;
};

export function operatorActor(principal: OperatorPrincipal): Actor {
  return {
    type: principal.kind,
    id: principal.kind === "api_token" ? principal.tokenId : principal.userId,
    label: principal.kind === "api_token" ? `${principal.email} (API token)` : principal.email,
  };
}

export function workerActor(principal: WorkerPrincipal): Actor {
  return { type: "worker", id: principal.agent.id, label: principal.agent.name };
}
