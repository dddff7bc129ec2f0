// Worker protocol answers are small JSON on a hot path: `no-transform` keeps the
// server from gzipping them (the compression cost more CPU than it saved bytes).
const HEADERS = { "cache-control": "no-store, no-transform" };

export function workerAnswer(data: unknown, status = 200): Response {
  return Response.json(data, { status, headers: HEADERS });
}
