// The benches' HTTP client: node:http with keep-alive. fetch costs the client
// (which shares the machine's two cores with the server) a millisecond or more
// per call, and that is not the server's latency.
import http from "node:http";

export type Reply = { status: number; text: string };

/** Calls `baseUrl` over kept-alive connections; `token` goes in as a Bearer token. */
export function keepAliveClient(baseUrl: string, maxSockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const { hostname, port } = new URL(baseUrl);
  const request = (method: string, path: string, token?: string, body?: unknown, retried = false): Promise<Reply> =>
    new Promise<Reply>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          host: hostname,
          port,
          method,
          path,
          agent,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        },
      );
      req.on("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed while idle: the request never reached it; send it again.
        if (req.reusedSocket && error.code === "ECONNRESET" && !retried) resolve(request(method, path, token, body, true));
        else reject(error);
      });
      req.end(payload);
    });
  return { request, close: () => agent.destroy() };
}

/** The reply's JSON (null when empty), or its text when it is not JSON. */
export function parseReply(reply: Reply): any {
  if (!reply.text) return null;
  try {
    return JSON.parse(reply.text);
  } catch {
    return reply.text;
  }
}
