// Request bodies the fast path (lib/api/fast-path.ts) has already read from the
// socket, kept by request: the route wrappers (lib/api/handler.ts) take them as
// bytes instead of streaming them again through a web ReadableStream, which cost
// about as much CPU as the rest of a worker's heartbeat. A request Next builds has
// none here and is read from its stream as before.
import type { ApiRequest } from "./api-request";

const bodies = new WeakMap<ApiRequest, Uint8Array>();

export function attachBody(req: ApiRequest, bytes: Uint8Array): void {
  bodies.set(req, bytes);
}

export function attachedBody(req: ApiRequest): Uint8Array | undefined {
  return bodies.get(req);
}
