// The benches' HTTP client: node:http with keep-alive. fetch costs the client
// (which shares the machine's two cores with the server) a millisecond or more
// per call, and that is not the server's latency.
import { readFileSync } from "node:fs";
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

/** The benches' --store and --instances flags (for parseArgs). */
export const STORE_OPTIONS = {
  /** sqlite (default) or postgresql (a fresh database on TEST_DATABASE_URL's server). */
  store: { type: "string", default: "sqlite" },
  /** App instances on the one database (PostgreSQL only); the load is spread over them. */
  instances: { type: "string", default: "1" },
} as const;

/** The store and instance count those flags ask for; a clear error for anything else. */
export function parseStoreOptions(values: { store?: string; instances?: string }): { store: "sqlite" | "postgresql"; instances: number } {
  const store = values.store === "postgresql" ? "postgresql" : "sqlite";
  if (values.store !== store) throw new Error(`--store ${values.store}: sqlite or postgresql`);
  const instances = Number(values.instances);
  if (!Number.isInteger(instances) || instances < 1 || (store === "sqlite" && instances > 1)) {
    throw new Error("--instances N: a whole number from 1, above 1 only with --store postgresql");
  }
  return { store, instances };
}

/**
 * CPU time (user + system, every thread) the processes spend from now on, in ms.
 * A process that exits meanwhile (a PostgreSQL backend whose pooled connection
 * closed) counts with the last figure read for it, so the total never goes back.
 */
export function cpuSince(pids: number[]): () => number {
  const last = new Map<number, number>();
  const read = () => {
    let total = 0;
    for (const pid of pids) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
        last.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
      } catch {
        // exited: its last figure stands
      }
      total += last.get(pid) ?? 0;
    }
    return total;
  };
  const start = read();
  return () => read() - start;
}
