// What the route wrappers (lib/api/handler.ts), authentication and the origin checks
// read of a request. Next hands them a standard Request, which has all of it; the
// fast path (lib/api/fast-path.ts) hands them a small object built straight from
// node:http, because undici's Request (its constructor, its AbortSignal, its body
// machinery) costs more than a poll's own work. Handlers get this type, so a
// handler cannot come to depend on more than the fast path provides.
export type ApiRequest = Pick<Request, "method" | "url" | "headers" | "signal" | "body">;
