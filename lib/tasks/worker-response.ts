// Worker protocol answers are small JSON on a hot path: `no-transform` keeps the
// server from gzipping them (the compression cost more CPU than it saved bytes).
// A JsonReply, not a Response: the fast path writes it without a body stream.
import { JsonReply } from "@/lib/api/handler";

const HEADERS = { "cache-control": "no-store, no-transform" };

export function workerAnswer(data: unknown, status = 200): JsonReply {
  return new JsonReply(status, data, HEADERS);
}
