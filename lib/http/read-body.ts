// Request bodies the fast path (lib/api/fast-path.ts) has already read from the
// socket, kept by request: the route wrappers (lib/api/handler.ts) take them as
// bytes instead of streaming them again through a web ReadableStream, which cost
// about as much CPU as the rest of a worker's heartbeat. A request Next builds has
// none here and is read from its stream as before.
const bodies = new WeakMap<Request, Uint8Array>();

export function attachBody(req: Request, bytes: Uint8Array): void {
  bodies.set(req, bytes);
}

export function attachedBody(req: Request): Uint8Array | undefined {
  return bodies.get(req);
}
