// What the production server (scripts/serve.mjs) checks before any route runs, so
// that no request, however odd, meets Next's plain-text 500 or an empty error:
// - a method HTTP routes do not use (TRACE, PROPFIND, ...): 405;
// - a path with a malformed percent-escape (`/api/v1/tasks/%ZZ`, or one that
//   decodes to invalid UTF-8): 400;
// - a sign-in or sign-out form (/api/auth/*, next-auth's route, which reads the whole
//   body itself) larger than the API's body limit: 413 before any of it is held in
//   memory; one sent in chunks of unknown length: 411;
// - an /api/* error answered with no body (Next's 405 for a method a route does not
//   export, its 400s): given the one error shape on the way out.
// Unknown /api/* paths are answered by app/api/[...path]/route.ts (JSON 404).
import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { DRAIN_LIMIT_BYTES, MAX_BODY_BYTES } from "@/lib/contracts/common";
import { ApiError, errorForStatus } from "@/lib/errors";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function hasMalformedEscape(pathname: string): boolean {
  try {
    for (const segment of pathname.split("/")) decodeURIComponent(segment);
    return false;
  } catch {
    return true;
  }
}

function send(res: ServerResponse, api: boolean, error: ApiError, headers: Record<string, string> = {}) {
  const body = api ? JSON.stringify(error.toBody()) : `${error.message}\n`;
  res.writeHead(error.status, {
    ...headers,
    "content-type": api ? "application/json" : "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
}

/** Answers `req` (and returns true) when it can reach no route; otherwise leaves it alone. */
export function refuseUnroutable(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  const pathname = query === -1 ? url : url.slice(0, query);
  const api = pathname.startsWith("/api/") || pathname === "/api";
  const method = req.method ?? "";
  if (!METHODS.has(method)) {
    send(res, api, new ApiError("method_not_allowed", `The method ${method || "(none)"} is not used by this app`), {
      allow: [...METHODS].join(", "),
    });
    return true;
  }
  // The asterisk-form ("OPTIONS *", RFC 9112 3.2.4) names the server, not a path: Next
  // cannot parse it as a URL and answered its plain-text 500. (Node refuses any other
  // target that is neither a path nor an absolute URL itself.)
  if (!url.startsWith("/") && !/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    if (method === "OPTIONS" && url === "*") {
      res.writeHead(204, { allow: [...METHODS].join(", "), "cache-control": "no-store" });
      res.end();
    } else {
      send(
        res,
        false,
        new ApiError("bad_request", `The request target ${url.slice(0, 200)} is not a path; send a path such as /api/health`),
      );
    }
    return true;
  }
  if (hasMalformedEscape(pathname)) {
    send(res, api, new ApiError("bad_request", "The path has a malformed percent-escape", { path: pathname.slice(0, 200) }));
    return true;
  }
  if (pathname.startsWith("/api/auth/") && refuseOversizedForm(req, res)) return true;
  if (api) shapeEmptyErrors(req, res);
  return false;
}

/**
 * next-auth reads a sign-in's whole form into memory before it can refuse it, and
 * anyone may post one: a body over the limit is refused from its Content-Length.
 * Browsers always declare it for a form; a body of undeclared length is refused.
 */
function refuseOversizedForm(req: IncomingMessage, res: ServerResponse): boolean {
  const declared = req.headers["content-length"];
  if (declared === undefined) {
    if (req.headers["transfer-encoding"] === undefined) return false; // no body at all
    answerAfterBody(req, res, new ApiError("length_required", "A sign-in request must declare its Content-Length"));
    return true;
  }
  const size = Number(declared);
  if (size <= MAX_BODY_BYTES) return false;
  const error = new ApiError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES} bytes`, { limit: MAX_BODY_BYTES });
  if (size > DRAIN_LIMIT_BYTES) send(res, true, error, { connection: "close" });
  else answerAfterBody(req, res, error);
  return true;
}

/**
 * As lib/api/handler.ts does: the body is read and dropped, never kept, so that the
 * client, still sending, gets the answer rather than a reset; past DRAIN_LIMIT_BYTES
 * the answer goes at once and the connection closes.
 */
function answerAfterBody(req: IncomingMessage, res: ServerResponse, error: ApiError) {
  let seen = 0;
  let answered = false;
  const answer = () => {
    if (answered) return;
    answered = true;
    send(res, true, error, { connection: "close" });
  };
  req.on("data", (chunk: Buffer) => {
    seen += chunk.byteLength;
    if (seen > DRAIN_LIMIT_BYTES) answer();
  });
  req.once("end", answer);
  req.once("error", () => res.destroy());
  req.resume();
}

/**
 * Next's own error answers to /api/* (405 for a method a route does not export, its
 * 400s) come with no body: they get the one shape on the way out. Next sends the
 * status with writeHead() and then an empty end(), so both are watched.
 */
function shapeEmptyErrors(req: IncomingMessage, res: ServerResponse) {
  if (req.method === "HEAD") return;
  let pending: string | null = null;
  const bodyFor = (status: number) => JSON.stringify(errorForStatus(status).toBody());
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const given = rest.find((arg) => arg && typeof arg === "object" && !Array.isArray(arg)) as Record<string, unknown> | undefined;
    const typed = res.hasHeader("content-type") || Object.keys(given ?? {}).some((key) => key.toLowerCase() === "content-type");
    if (status >= 400 && !typed) {
      pending = bodyFor(status);
      res.setHeader("content-type", "application/json");
      res.removeHeader("content-length");
    }
    return writeHead(status, ...rest);
  }) as ServerResponse["writeHead"];
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const [chunk] = args;
    const callbacks = args.filter((arg) => typeof arg === "function");
    const empty = chunk === undefined || chunk === null || typeof chunk === "function" || (chunk as { length?: number }).length === 0;
    if (empty && pending !== null) {
      const body = pending;
      pending = null;
      return end(body, ...callbacks);
    }
    if (empty && !res.headersSent && res.statusCode >= 400 && !res.hasHeader("content-type")) {
      const body = bodyFor(res.statusCode);
      res.setHeader("content-type", "application/json");
      res.setHeader("content-length", Buffer.byteLength(body));
      return end(body, ...callbacks);
    }
    return end(...args);
  }) as ServerResponse["end"];
}
