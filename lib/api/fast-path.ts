// The hot routes (the worker protocol's task loop, memory writes and search), answered straight
// from node:http by the very same route handlers Next.js would call. Next's request
// pipeline (routing, request/response wrapping, rendering machinery) costs 2–3 ms
// of CPU per request, more than a claim and a finish together; a swarm polls all day. The production
// server (scripts/serve.mjs) offers every request here first and hands anything
// not in the table to Next. Same handlers, so the same authentication,
// validation, limits and error shape: only the plumbing differs.
import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { POST as operatorSearch } from "@/app/api/v1/memories/search/route";
import { POST as workerRemember } from "@/app/api/worker/memories/route";
import { POST as workerSearch } from "@/app/api/worker/memories/search/route";
import { GET as poll } from "@/app/api/worker/poll/route";
import { GET as bundle } from "@/app/api/worker/tasks/[id]/bundle/route";
import { POST as complete } from "@/app/api/worker/tasks/[id]/complete/route";
import { POST as fail } from "@/app/api/worker/tasks/[id]/fail/route";
import { POST as heartbeat } from "@/app/api/worker/tasks/[id]/heartbeat/route";
import { POST as release } from "@/app/api/worker/tasks/[id]/release/route";
import { OUTCOME, type Outcome, type RouteHandler } from "@/lib/api/handler";
import { DRAIN_LIMIT_BYTES, MAX_BODY_BYTES } from "@/lib/contracts/common";
import { errorOutcome, toApiError } from "@/lib/errors";
import type { ApiRequest } from "@/lib/http/api-request";
import { attachBody } from "@/lib/http/read-body";
import { SECURITY_HEADERS } from "@/lib/http/security-headers";

type Params = Record<string, string>;

/** Exact paths; `:id` is one path segment. Anything else (other methods, trailing slashes) goes to Next. */
const ROUTES: ReadonlyArray<{ method: string; path: string; handler: RouteHandler; longPoll?: boolean }> = [
  { method: "GET", path: "/api/worker/poll", handler: poll, longPoll: true },
  { method: "POST", path: "/api/worker/tasks/:id/heartbeat", handler: heartbeat },
  { method: "POST", path: "/api/worker/tasks/:id/complete", handler: complete },
  { method: "POST", path: "/api/worker/tasks/:id/fail", handler: fail },
  { method: "POST", path: "/api/worker/tasks/:id/release", handler: release },
  { method: "GET", path: "/api/worker/tasks/:id/bundle", handler: bundle },
  { method: "POST", path: "/api/worker/memories", handler: workerRemember },
  { method: "POST", path: "/api/worker/memories/search", handler: workerSearch },
  { method: "POST", path: "/api/v1/memories/search", handler: operatorSearch },
];

const TABLE = ROUTES.map((route) => ({
  ...route,
  pattern: new RegExp(`^${route.path.replace(":id", "([^/]+)")}$`),
}));

type Match = { handler: RouteHandler; params: Params; longPoll: boolean };

/** The signal of a request that cannot be hung up on early (only long polls watch it). */
const NEVER = new AbortController().signal;

function match(method: string | undefined, pathname: string): Match | null {
  for (const route of TABLE) {
    if (route.method !== method) continue;
    const found = route.pattern.exec(pathname);
    if (!found) continue;
    const longPoll = route.longPoll === true;
    if (found[1] === undefined) return { handler: route.handler, params: {}, longPoll };
    try {
      return { handler: route.handler, params: { id: decodeURIComponent(found[1]) }, longPoll };
    } catch {
      return null; // a malformed escape: Next answers it
    }
  }
  return null;
}

/** Answers `req` when it is one of the hot routes (and returns true); otherwise leaves it alone. */
export function serveFastPath(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? "";
  if (!url.startsWith("/api/")) return false;
  const query = url.indexOf("?");
  const route = match(req.method, query === -1 ? url : url.slice(0, query));
  if (!route) return false;
  answer(req, res, route).catch((error) => {
    console.error("[swarmdeck] fast path", error);
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
    res.end();
  });
  return true;
}

/**
 * The request body as bytes (cheaper than streaming it through web streams). The
 * handler still applies its own limit: a body declared too large is handed over
 * empty, and one that turns out too large is cut past the limit, so the handler
 * answers 413 exactly as it does under Next (and closes the connection). Either is
 * read to its end first, up to DRAIN_LIMIT_BYTES, so the client gets the answer.
 */
function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const declared = Number(req.headers["content-length"] ?? "NaN");
  const declaredTooLarge = Number.isFinite(declared) && declared > MAX_BODY_BYTES;
  if (declaredTooLarge && declared > DRAIN_LIMIT_BYTES) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off("data", onData);
      req.off("end", done);
      req.off("error", reject);
      if (size > DRAIN_LIMIT_BYTES) req.pause(); // the 413 answer closes the connection on the rest
      resolve(declaredTooLarge ? new Uint8Array(0) : Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES + 1));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      // Past the limit the bytes are read and dropped (see DRAIN_LIMIT_BYTES), so the client reads the 413.
      if (size <= MAX_BODY_BYTES + chunk.byteLength && !declaredTooLarge) chunks.push(chunk);
      if (size > DRAIN_LIMIT_BYTES) done();
    };
    req.on("data", onData);
    req.once("end", done);
    req.once("error", reject);
  });
}

/**
 * The request the handlers get (lib/http/api-request.ts). A class rather than an
 * object literal with a `get signal()`: for each such literal V8 (Node 20) allocates
 * the accessor's getter/setter pair in the old generation, pointing at that request's
 * getter, whose closure held the request and the response. A young-generation
 * collection takes every pointer out of the old generation as live, so each request's
 * objects survived the collections until the next full one. Measured on refused polls:
 * 2.3-3.4 MB kept per collection and median pauses of 13-22 ms, against 12 KB and
 * under 1 ms with this class (docs/benchmarks.md, "Where the young-generation pauses
 * came from").
 */
class FastRequest implements ApiRequest {
  readonly body = null;
  /** Made when a handler first asks for the signal (a poll asks only once a claim found nothing: most claim at once), or at a hang-up. */
  private hangUp: AbortController | undefined = undefined;

  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Headers,
    private readonly longPoll: boolean,
  ) {}

  /** Only long polls watch it; an AbortSignal costs more than a poll's lookup, so it is made on demand. */
  get signal(): AbortSignal {
    if (!this.longPoll) return NEVER;
    this.hangUp ??= new AbortController();
    return this.hangUp.signal;
  }

  /** The client hung up before the answer: the signal is aborted, whether asked for yet or not. */
  clientHungUp(): void {
    this.hangUp ??= new AbortController();
    this.hangUp.abort();
  }
}

async function answer(req: IncomingMessage, res: ServerResponse, route: Match) {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  // serveFastPath took only paths under /api/, so this is an absolute URL as is (the handler parses it once).
  const request = new FastRequest(req.method ?? "GET", `http://localhost${req.url}`, headers, route.longPoll);
  // A client that hangs up ends a long poll at once (the handler watches req.signal).
  if (route.longPoll) {
    res.once("close", () => {
      if (!res.writableFinished) request.clientHungUp();
    });
  }
  // The body goes to the handler as bytes beside the request (lib/http/read-body.ts), not as a web stream.
  if (req.method !== "GET" && req.method !== "HEAD") attachBody(request, await readBody(req));

  // The handler's answer as status and JSON text (lib/api/handler.ts): no web
  // Response and no body stream to read back, which cost more than a poll's own work.
  let outcome: Outcome;
  try {
    outcome = await route.handler[OUTCOME](request, { params: Promise.resolve(route.params) });
  } catch (error) {
    outcome = errorOutcome(toApiError(error, `${req.method} ${req.url}`));
  }
  if (outcome.response) return sendResponse(res, outcome.response);
  if (res.destroyed) return;
  for (const { key, value } of SECURITY_HEADERS) res.setHeader(key, value);
  if (outcome.headers) for (const [key, value] of Object.entries(outcome.headers)) res.setHeader(key, value);
  if (outcome.json === null) {
    res.writeHead(outcome.status);
    res.end();
    return;
  }
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(outcome.json));
  res.writeHead(outcome.status);
  res.end(outcome.json);
}

/** A Response a handler made itself (none of the hot routes does today), written out as is. */
async function sendResponse(res: ServerResponse, response: Response) {
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
  if (res.destroyed) return;
  for (const { key, value } of SECURITY_HEADERS) res.setHeader(key, value);
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (body) res.setHeader("content-length", body.byteLength);
  res.writeHead(response.status);
  res.end(body ?? undefined);
}
