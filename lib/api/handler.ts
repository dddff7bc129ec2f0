// Route handler wrappers: authenticate, authorize, parse with zod, and turn every
// throw into the one error shape. Handlers return data (200 JSON), a Response,
// or nothing (204).
import "server-only";
import type { z } from "zod";
import type { Actor } from "@/lib/audit/audit-log";
import {
  authenticateOperator,
  authenticateWorker,
  type OperatorPrincipal,
  operatorActor,
  type WorkerPrincipal,
  workerActor,
} from "@/lib/auth/principal";
import { hasRole } from "@/lib/auth/roles";
import { DRAIN_LIMIT_BYTES, MAX_BODY_BYTES, type UserRole } from "@/lib/contracts/common";
import { ApiError, errorOutcome, toApiError } from "@/lib/errors";
import type { ApiRequest } from "@/lib/http/api-request";
import { attachedBody } from "@/lib/http/read-body";
import { assertJsonContentType, assertSameOrigin } from "@/lib/http/same-origin";
import { findJsonProblem, hasLoneSurrogate, hasNul } from "@/lib/http/well-formed";

type Params = Record<string, string>;
type RouteContext = { params: Promise<Params> };

export type RequestTools = {
  /** Under Next its NextRequest; on the fast path a request built from node:http (lib/http/api-request.ts). */
  req: ApiRequest;
  params: Params;
  /** Reads the JSON body (at most `limit` bytes, 413 beyond) and validates it. */
  body<S extends z.ZodType>(schema: S, limit?: number): Promise<z.infer<S>>;
  /** Validates the query string. */
  query<S extends z.ZodType>(schema: S): z.infer<S>;
};

export type OperatorContext = RequestTools & { principal: OperatorPrincipal; actor: Actor };
export type WorkerContext = RequestTools & { principal: WorkerPrincipal; actor: Actor };

/**
 * A JSON answer with a status other than 200. A plain object rather than a Response:
 * the fast path (lib/api/fast-path.ts) writes it straight to node:http, and Next gets
 * a Response made from it (toResponse below).
 */
export class JsonReply {
  constructor(
    readonly status: number,
    readonly data: unknown,
    readonly headers?: Record<string, string>,
  ) {}
}

export function created(data: unknown): JsonReply {
  return new JsonReply(201, data);
}

export function accepted(data: unknown): JsonReply {
  return new JsonReply(202, data);
}

/** Reads and drops the rest of an oversized body (up to DRAIN_LIMIT_BYTES) so the client gets the 413, not a reset. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, read: number): Promise<void> {
  let size = read;
  while (size <= DRAIN_LIMIT_BYTES) {
    const { done, value } = await reader.read();
    if (done) return;
    size += value.byteLength;
  }
  await reader.cancel();
}

async function readBody(req: ApiRequest, limit: number): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    if (req.body && !attachedBody(req) && declared <= DRAIN_LIMIT_BYTES) await drain(req.body.getReader(), 0);
    throw tooLarge(limit);
  }
  const attached = attachedBody(req);
  if (attached) {
    if (attached.byteLength > limit) throw tooLarge(limit);
    return utf8(attached);
  }
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await drain(reader, size);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return utf8(Buffer.concat(chunks));
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** JSON is UTF-8 (RFC 8259): bytes that are not are refused, never stored as U+FFFD in place of what was sent. */
function utf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid UTF-8");
  }
}

function tooLarge(limit: number) {
  return new ApiError("payload_too_large", `The request body is larger than ${limit} bytes`, { limit });
}

/**
 * Text no record holds: a NUL (PostgreSQL text cannot store one, SQLite could) or a
 * lone surrogate. Checked here so both stores answer alike, never with a driver's 500.
 */
const unstorable = (text: string) => hasNul(text) || hasLoneSurrogate(text);

/** A body of nothing but JSON whitespace. */
const NO_BODY = /^[ \t\n\r]*$/;

/** `jsonOnly`: the body must be declared JSON (a session-cookie request: see lib/http/same-origin.ts). */
function tools(req: ApiRequest, params: Params, jsonOnly = false): RequestTools {
  // A path naming something by unstorable text names nothing that exists.
  for (const [name, value] of Object.entries(params)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item === "string" && unstorable(item))) {
      throw new ApiError("not_found", `Nothing exists at this path (the ${name} has a character no record can hold)`);
    }
  }
  return {
    req,
    params,
    async body(schema, limit = MAX_BODY_BYTES) {
      if (jsonOnly) assertJsonContentType(req);
      const text = await readBody(req, limit);
      let json: unknown;
      try {
        // No body at all is an empty object: a call whose fields are all optional
        // (a heartbeat, an approval) needs none; a call with required ones names them.
        json = NO_BODY.test(text) ? {} : JSON.parse(text);
      } catch {
        throw new ApiError("invalid_json", "The request body is not valid JSON");
      }
      const problem = findJsonProblem(json);
      if (problem) throw new ApiError("validation_failed", "The request is not valid", [problem]);
      return schema.parse(json);
    },
    query(schema) {
      const entries = [...new URL(req.url).searchParams];
      const bad = entries.find(([key, value]) => unstorable(key) || unstorable(value));
      if (bad) {
        throw new ApiError("validation_failed", "The request is not valid", [
          { path: bad[0], message: "contains a NUL character or a lone UTF-16 surrogate" },
        ]);
      }
      return schema.parse(Object.fromEntries(entries));
    },
  };
}

/**
 * A handler's answer before it becomes a Response: a status, the JSON text (null:
 * no body) and any extra headers; or a Response the handler made itself.
 */
export type Outcome =
  | { status: number; json: string | null; headers?: Record<string, string>; response?: undefined }
  | { response: Response };

function toOutcome(result: unknown): Outcome {
  if (result instanceof Response) return { response: result };
  if (result === undefined) return { status: 204, json: null };
  if (result instanceof JsonReply) return { status: result.status, json: JSON.stringify(result.data), headers: result.headers };
  return { status: 200, json: JSON.stringify(result) };
}

/** The outcome as a Response (what Next sends). */
export function toResponse(outcome: Outcome): Response {
  if (outcome.response) return outcome.response;
  if (outcome.json === null) return new Response(null, { status: outcome.status, headers: outcome.headers });
  return new Response(outcome.json, { status: outcome.status, headers: { ...outcome.headers, "content-type": "application/json" } });
}

async function run(req: ApiRequest, fn: () => Promise<unknown>): Promise<Outcome> {
  try {
    return toOutcome(await fn());
  } catch (error) {
    const apiError = toApiError(error, `${req.method} ${new URL(req.url).pathname}`);
    const outcome = errorOutcome(apiError);
    // The rest of an oversized body is never read: close the connection so a
    // keep-alive client does not send its next request into the leftover bytes.
    if (apiError.code === "payload_too_large") outcome.headers = { ...outcome.headers, connection: "close" };
    return outcome;
  }
}

/** The key under which a route handler carries its Outcome-returning form (for lib/api/fast-path.ts). */
export const OUTCOME = Symbol("swarmdeck.outcome");

export type RouteHandler = ((req: Request, context: RouteContext) => Promise<Response>) & {
  [OUTCOME]: (req: ApiRequest, context: RouteContext) => Promise<Outcome>;
};

function route(serve: (req: ApiRequest, context: RouteContext) => Promise<Outcome>): RouteHandler {
  const handler = (req: Request, context: RouteContext) => serve(req, context).then(toResponse);
  return Object.assign(handler, { [OUTCOME]: serve });
}

/** An operator API route: a session or an operator token with at least `minRole`. */
export function operatorRoute(minRole: UserRole, handler: (ctx: OperatorContext) => Promise<unknown>): RouteHandler {
  return route((req, context) =>
    run(req, async () => {
      const principal = await authenticateOperator(req);
      // The session cookie authenticated this request: a change must come from our own pages.
      const cookieAuthenticated = principal.kind === "user";
      if (cookieAuthenticated) assertSameOrigin(req);
      if (!hasRole(principal.role, minRole)) {
        throw new ApiError("forbidden", `This needs the ${minRole} role; you are ${principal.role}`);
      }
      const params = (await context?.params) ?? {};
      return handler({ ...tools(req, params, cookieAuthenticated), principal, actor: operatorActor(principal) });
    }),
  );
}

/** A worker protocol route: a worker token, acting only as its own agent. */
export function workerRoute(handler: (ctx: WorkerContext) => Promise<unknown>): RouteHandler {
  return route((req, context) =>
    run(req, async () => {
      // Next answers HEAD with the GET handler, and a worker GET can change things: a
      // poll claims a task (and a HEAD would throw it away unseen), a bundle records
      // its memory injection. No worker sends HEAD, so none is served.
      if (req.method === "HEAD") {
        throw new ApiError("method_not_allowed", "Worker routes do not answer HEAD; send GET", { allow: "GET" });
      }
      const principal = await authenticateWorker(req);
      const params = (await context?.params) ?? {};
      return handler({ ...tools(req, params), principal, actor: workerActor(principal) });
    }),
  );
}

/**
 * A worker protocol route for lead agents only: the swarm-wide reads and the
 * learnings. Any other agent's token gets 403 before the handler runs.
 */
export function leadRoute(what: string, handler: (ctx: WorkerContext) => Promise<unknown>): RouteHandler {
  return workerRoute(async (ctx) => {
    if (ctx.principal.agent.role !== "lead") {
      throw new ApiError("forbidden", `Only a lead agent may ${what}; ${ctx.principal.agent.name} is a worker`);
    }
    return handler(ctx);
  });
}

/** A route anyone may call (health). Errors still take the one shape. */
export function publicRoute(handler: (ctx: RequestTools) => Promise<unknown>): RouteHandler {
  return route((req, context) => run(req, async () => handler(tools(req, (await context?.params) ?? {}))));
}
