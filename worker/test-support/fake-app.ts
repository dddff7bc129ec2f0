// biome-ignore-all lint/suspicious/noExplicitAny: the recorded request bodies of a test double are untyped JSON
// An in-memory stand-in for the app's worker protocol (paths and shapes of
// lib/contracts), for the worker's unit tests: it records every call so a test
// can assert what the worker sent. The full-loop tests in tests/worker-*.test.ts
// run the same worker against the real app.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { slugToKind } from "../../lib/contracts/identity";
import type { TaskDto } from "../../lib/contracts/tasks";
import { composeSetupScript, setupScriptHash } from "../../lib/setup-script/compose";

export type FakeCall = { method: string; path: string; body: any };
type Version = { id: string; content: string };

export function fakeTask(id: string, overrides: Partial<TaskDto> = {}): TaskDto {
  const now = new Date().toISOString();
  return {
    id,
    title: `task ${id}`,
    description: "",
    type: "task",
    tags: [],
    priority: 0,
    status: "in_progress",
    agentId: "agent-1",
    agentName: "ada",
    parentTaskId: null,
    attempts: 1,
    claimedAt: now,
    heartbeatAt: now,
    finishedAt: null,
    progress: null,
    output: null,
    summary: null,
    failureReason: null,
    identityGrant: [],
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

export async function startFakeApp(options: { token?: string; profile?: "paranoid" | "standard" | "power" } = {}) {
  const token = options.token ?? "sdw_fake_token";
  const calls: FakeCall[] = [];
  const queue: TaskDto[] = [];
  const finished = new Map<string, { status: string; body: any }>();
  const cancelled = new Set<string>();
  const files = new Map<string, Version[]>([
    ["SOUL", [{ id: "soul-1", content: "# Soul\nI am careful.\n" }]],
    ["TOOLS", [{ id: "tools-1", content: "# Tools\n" }]],
    ["AGENT", [{ id: "agent-1", content: "# Agent rules\n" }]],
    ["SETUP_SCRIPT", [{ id: "setup-1", content: 'echo "agent script ran" >> setup-runs.log' }]],
  ]);
  const state = {
    globalScript: '#!/bin/bash\necho "global script ran" >> setup-runs.log',
    proposals: [] as Array<{ kind: string; content: string; base: string | null; mode: string }>,
    memories: [] as any[],
    created: [] as any[],
    /** What the worker reported of its setup script runs (POST /api/worker/setup-status). */
    setupReports: [] as any[],
    /** Kinds whose next write finds the file moved on (an operator saved meanwhile): 409. */
    staleOnce: new Set<string>(),
  };
  let versionCounter = 10;
  const current = (kind: string) => files.get(kind)?.at(-1) ?? null;

  function json(res: ServerResponse, status: number, body?: unknown) {
    res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  }
  const error = (res: ServerResponse, status: number, code: string, message: string, details?: unknown) =>
    json(res, status, { error: { code, message, ...(details ? { details } : {}) } });

  async function body(req: IncomingMessage) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? JSON.parse(text) : undefined;
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const payload = await body(req);
    calls.push({ method: req.method ?? "GET", path: url.pathname, body: payload });
    if (req.headers.authorization !== `Bearer ${token}`) return error(res, 401, "unauthorized", "bad token");
    const taskMatch = /^\/api\/worker\/tasks\/([^/]+)\/(bundle|heartbeat|complete|fail|release)$/.exec(url.pathname);
    if (url.pathname === "/api/worker/register") {
      return json(res, 200, {
        agent: { id: "agent-1", name: "ada", role: "worker", securityProfile: options.profile ?? "standard" },
        pollIntervalMs: 1000,
      });
    }
    if (url.pathname === "/api/worker/setup-script") {
      const scripts = { global: state.globalScript, agent: current("SETUP_SCRIPT")?.content ?? "" };
      const composed = composeSetupScript(scripts);
      return json(res, 200, { ...scripts, composed, hash: setupScriptHash(composed) });
    }
    if (url.pathname === "/api/worker/setup-status" && req.method === "POST") {
      state.setupReports.push(payload);
      return json(res, 200, { ok: true });
    }
    if (url.pathname === "/api/worker/poll") {
      const task = queue.shift();
      if (!task) {
        const wait = Math.min(Number(url.searchParams.get("waitMs") ?? 0), 200);
        await new Promise((resolve) => setTimeout(resolve, wait));
        return json(res, 204);
      }
      return json(res, 200, { task });
    }
    if (taskMatch) {
      const [, id, action] = taskMatch;
      if (action === "bundle") {
        const listed = [...files.entries()].map(([kind, versions]) => ({
          kind,
          path: kind === "SETUP_SCRIPT" ? "start-up.sh" : `${kind}.md`,
          content: versions.at(-1)!.content,
          versionId: versions.at(-1)!.id,
        }));
        return json(res, 200, {
          task: fakeTask(id!),
          files: listed,
          setupScript: { global: state.globalScript, agent: current("SETUP_SCRIPT")?.content ?? "", composed: "" },
          systemPrompt: "You are ada.\n",
          taskPrompt: `# Task ${id}\nDo the thing.\n`,
          memories: [],
          decisions: [],
        });
      }
      if (finished.has(id!)) return error(res, 409, "already_finished", "the task is already finished");
      if (action === "heartbeat")
        return json(res, 200, { cancelled: cancelled.has(id!), status: cancelled.has(id!) ? "cancelled" : "in_progress" });
      finished.set(id!, { status: action === "complete" ? "completed" : action === "fail" ? "failed" : "released", body: payload });
      return json(res, 200, { ok: true });
    }
    const identity = /^\/api\/worker\/identity\/([^/]+)$/.exec(url.pathname);
    if (identity && req.method === "PUT") {
      const kind = slugToKind(identity[1]!);
      if (!kind) return error(res, 404, "not_found", "no such kind");
      if (kind === "AGENT" || kind === "CAPABILITIES") return error(res, 403, "locked", `${kind} is locked`);
      if (state.staleOnce.delete(kind)) {
        files.set(kind, [...(files.get(kind) ?? []), { id: `${kind.toLowerCase()}-${++versionCounter}`, content: "operator's edit\n" }]);
      }
      const head = current(kind);
      if ((head?.id ?? null) !== payload.baseVersionId) {
        return error(res, 409, "stale_base", "the file changed since your base version");
      }
      // The steering files follow the profile (lib/identity/rules.ts); no task of the fake carries a grant.
      const gated = ["SOUL", "IDENTITY", "USER", "CLAUDE", "SETUP_SCRIPT"].includes(kind);
      if (payload.mode === "propose" || payload.mode === "review" || (gated && (options.profile ?? "standard") === "standard")) {
        state.proposals.push({ kind, content: payload.content, base: payload.baseVersionId, mode: payload.mode });
        return json(res, 202, { status: "pending", proposalId: `proposal-${state.proposals.length}` });
      }
      if (gated && options.profile === "paranoid") return error(res, 403, "profile_forbids", "paranoid");
      const version = { id: `${kind.toLowerCase()}-${++versionCounter}`, content: payload.content };
      files.set(kind, [...(files.get(kind) ?? []), version]);
      return json(res, 200, { status: "applied", versionId: version.id });
    }
    if (url.pathname === "/api/worker/memories") {
      state.memories.push(payload);
      return json(res, 201, { ids: [state.memories.length] });
    }
    if (url.pathname === "/api/worker/memories/search") {
      return json(res, 200, {
        mode: "keyword",
        results: state.memories
          .filter((m) => m.content.includes(payload.query))
          .map((m, i) => ({
            id: i + 1,
            name: m.name,
            content: m.content,
            score: 0.9,
            scope: m.scope,
            source: m.source,
            agentId: "agent-1",
            createdAt: new Date().toISOString(),
          })),
      });
    }
    if (url.pathname === "/api/worker/tasks" && req.method === "POST") {
      state.created.push(payload);
      return json(res, 201, {
        task: fakeTask(`created-${state.created.length}`, { status: "unassigned", title: payload.title, tags: payload.tags }),
      });
    }
    return error(res, 404, "not_found", `fake app has no ${req.method} ${url.pathname}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    calls,
    queue,
    finished,
    cancelled,
    files,
    state,
    /** Another writer moved a file on (the next agent write against the old base is a 409). */
    bump(kind: string, content: string) {
      files.set(kind, [...(files.get(kind) ?? []), { id: `${kind.toLowerCase()}-${++versionCounter}`, content }]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type FakeApp = Awaited<ReturnType<typeof startFakeApp>>;
