// The benches' HTTP client: node:http with keep-alive. fetch costs the client
// (which shares the machine's two cores with the server) a millisecond or more
// per call, and that is not the server's latency. Also what the benches share:
// store flags, CPU meters, and the ceiling a client itself sets (clientCeiling).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { constants, PerformanceObserver } from "node:perf_hooks";

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

/** What the stand-in server of clientCeiling answers, by request method. */
export type CannedReplies = Partial<Record<string, { status: number; body: string }>> & { GET: { status: number; body: string } };

// The stand-in: node:http answering each request, as soon as its body is read, with
// the canned reply for its method and the headers the app's fast path sends
// (lib/http/security-headers.ts), on kept-alive connections like the app's.
const STAND_IN = `
const http = require("node:http");
const replies = JSON.parse(process.argv[1]);
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const reply = replies[req.method] || replies.GET;
    res.writeHead(reply.status, {
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "same-origin",
      "content-type": "application/json",
      "content-length": Buffer.byteLength(reply.body),
    });
    res.end(reply.body);
  });
});
server.keepAliveTimeout = 65000;
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

/**
 * The most a client can drive from this machine: the same client, loops and
 * requests as a measured run, for `seconds`, against a server in a process of its
 * own that does no work at all (it answers at once with `replies`, the bytes the
 * app answered). The client shares the machine's cores with whatever server it
 * calls, so a throughput above this figure cannot be shown from here with this
 * client, however little the server spends. `run` is one loop's step (a request,
 * or a claim and its complete) against the base URL given; answers the steps per
 * second and the client's CPU per step.
 */
export async function clientCeiling(args: {
  replies: CannedReplies;
  loops: number;
  seconds: number;
  run: (baseUrl: string) => Promise<unknown>;
}): Promise<{ perSecond: number; clientCpuMs: number }> {
  const child = spawn(process.execPath, ["-e", STAND_IN, JSON.stringify(args.replies)], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      child.once("exit", (code) => reject(new Error(`the stand-in server exited (${code})`)));
      child.once("error", reject);
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    // A first step per loop opens its connection, as the measured runs' warm-ups do.
    await Promise.all(Array.from({ length: args.loops }, () => args.run(baseUrl)));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let steps = 0;
    await Promise.all(
      Array.from({ length: args.loops }, async () => {
        while (performance.now() - t0 < args.seconds * 1000) {
          await args.run(baseUrl);
          steps += 1;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return { perSecond: steps / seconds, clientCpuMs: (cpu.user + cpu.system) / 1000 / steps };
  } finally {
    child.kill();
  }
}

/** A pause of this (the bench's) process for a garbage collection: when, how long, and which kind (perf_hooks' NODE_PERFORMANCE_GC_*). */
export type Pause = { start: number; end: number; kind: number };

/**
 * The bench process's own garbage-collection pauses. A pause stops every loop of
 * the client at once, so a request whose answer arrives meanwhile is timed longer
 * by the pause; a worker in a process of its own (as workers are deployed, one per
 * agent) pauses only for its own garbage. Node's fetch keeps each response through
 * the young-generation collections that follow it (undici registers every Response
 * with a FinalizationRegistry, and in V8 a registered object survives them), so with
 * thirty fetch loops in one process each young collection copies megabytes
 * (docs/benchmarks.md, "The client's own pauses").
 */
export function clientPauses() {
  let pauses: Pause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
      pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration, kind });
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  // GC entries reach the observer a little after the collection.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  return {
    /** Forgets the pauses so far (after those still on their way). */
    async reset(): Promise<void> {
      await settle();
      pauses = [];
    },
    /** The pauses since the last reset. */
    async taken(): Promise<Pause[]> {
      await settle();
      return pauses.slice();
    },
    stop: () => observer.disconnect(),
  };
}

/** How long the pauses took within [start, end] (performance.now() times). */
export function pausedWithin(pauses: Pause[], start: number, end: number): number {
  let paused = 0;
  for (const pause of pauses) paused += Math.max(0, Math.min(end, pause.end) - Math.max(start, pause.start));
  return paused;
}

/** One line on the pauses: the young-generation collections, the full ones, and any other kind. */
export function describePauses(pauses: Pause[]): string {
  const took = (kind: number) => pauses.filter((pause) => pause.kind === kind).map((pause) => pause.end - pause.start);
  const young = took(constants.NODE_PERFORMANCE_GC_MINOR);
  const full = took(constants.NODE_PERFORMANCE_GC_MAJOR);
  return describeCollections(young, full, pauses.length - young.length - full.length);
}

/** The collections' line of a round, in the bench process or a server (their pauses in ms; `other`: the remaining pauses). */
export function describeCollections(young: number[], full: number[], other: number): string {
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  return [
    `${young.length} young-generation collections, ${sum(young).toFixed(0)} ms in all, the longest ${Math.max(0, ...young).toFixed(1)} ms`,
    `${full.length} full (${sum(full).toFixed(0)} ms)`,
    ...(other > 0 ? [`${other} incremental marking steps and weak callbacks`] : []),
  ].join("; ");
}
