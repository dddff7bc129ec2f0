// A small HTTP server on 127.0.0.1 for the `swarm` CLI and the Claude hooks: the
// agent reaches the app through the worker, with a per-task secret, and never
// sees the worker token. Each route forwards one call and answers the app's
// status and error shape unchanged, so the CLI can print exactly what happened.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { slugToKind } from "../lib/contracts/identity";
import { searchMemoryBodySchema } from "../lib/contracts/memory";
import { type ApiClient, WorkerApiError } from "./api-client";
import { MAX_CONTROL_BODY_BYTES as MAX_BODY_BYTES } from "./cli/control-call";
import { CONTROL_HEADER } from "./cli/swarm-args";
import { parseControlBody as parse } from "./control-body";
import type { Heartbeat } from "./heartbeat";
import { leadRoute } from "./lead-routes";
import type { Logger } from "./log";
import type { WorkspaceSync } from "./sync";
import { toolRoute } from "./tool-routes";

const identityBody = z.strictObject({
  kind: z.string().max(40),
  content: z.string().max(1024 * 1024),
  reason: z.string().trim().min(1, "a reason is required (--reason)").max(1000),
  mode: z.enum(["write", "propose"]),
});
const progressBody = z.strictObject({ note: z.string().trim().min(1, "a note is required").max(4000) });
const releaseBody = z.strictObject({ reason: z.string().trim().min(1, "a reason is required").max(4000) });
const storeBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  content: z.string().min(1, "the file is empty"),
  scope: z.enum(["agent", "swarm"]).default("agent"),
});

export type ControlServer = { url: string; secret: string; close(): Promise<void> };

type Context = {
  api: ApiClient;
  log: Logger;
  taskId: string;
  sync: WorkspaceSync;
  heartbeat: Heartbeat;
  /** `swarm release`: the task runner gives the task back once the agent has stopped. */
  release: (reason: string) => void;
  /** A sign of life for the no-progress limit (a Claude Code hook: a tool was used). */
  onActivity?: (what: string) => void;
};

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, code: string, message: string, details?: unknown) {
  send(res, status, { error: { code, message, ...(details === undefined ? {} : { details }) } });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // A body over the limit is still read to its end (and dropped): leaving it unread broke the
  // connection, and `swarm mcp` (one process, one kept-alive connection) failed its next call.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) throw new WorkerApiError(413, "payload_too_large", "the request is larger than 2 MiB");
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    throw new WorkerApiError(400, "invalid_json", "the body is not JSON");
  }
}

async function route(ctx: Context, path: string, body: unknown): Promise<[number, unknown]> {
  switch (path) {
    case "/identity": {
      const input = parse(identityBody, body);
      const kind = slugToKind(input.kind);
      if (!kind)
        throw new WorkerApiError(
          400,
          "validation_failed",
          `unknown kind "${input.kind}" (soul, identity, user, tools, claude, heartbeat, bootstrap, agent, setup-script, capabilities)`,
        );
      const outcome = await ctx.sync.send({
        kind,
        content: input.content,
        mode: input.mode,
        reason: input.reason,
      });
      if (outcome.result === "applied" || outcome.result === "pending" || outcome.result === "conflict_proposed") {
        if (outcome.result === "applied" && outcome.versionId) await ctx.sync.adoptApplied(kind, input.content, outcome.versionId);
        return [
          outcome.result === "applied" ? 200 : 202,
          {
            status: outcome.result,
            versionId: outcome.versionId,
            proposalId: outcome.proposalId,
            ...(outcome.unchanged ? { unchanged: true } : {}),
            detail: outcome.detail,
          },
        ];
      }
      return [
        outcome.status && outcome.status >= 400 ? outcome.status : 502,
        { error: { code: outcome.code ?? "not_sent", message: outcome.said ?? outcome.detail } },
      ];
    }
    case "/proposals":
      return [200, await ctx.api.proposals()];
    case "/progress": {
      const { note } = parse(progressBody, body);
      ctx.onActivity?.(`progress: ${note}`);
      await ctx.heartbeat.progress(note);
      return [200, { ok: true }];
    }
    case "/release": {
      const { reason } = parse(releaseBody, body);
      ctx.release(reason);
      return [202, { ok: true }];
    }
    case "/memory/search": {
      const input = parse(searchMemoryBodySchema, body);
      return [200, await ctx.api.searchMemory(input)];
    }
    case "/memory/store": {
      const input = parse(storeBody, body);
      return [201, await ctx.api.storeMemory({ ...input, source: "manual", taskId: ctx.taskId })];
    }
    case "/identity/read": {
      const kind = slugToKind(parse(z.strictObject({ kind: z.string().max(40) }), body).kind);
      if (!kind) throw new WorkerApiError(400, "validation_failed", "unknown kind");
      return [200, await ctx.api.getIdentity(kind)];
    }
    case "/sync": {
      ctx.onActivity?.("tool use");
      await ctx.sync.syncNow("hook");
      return [200, { ok: true, outcomes: ctx.sync.outcomes.slice(-20) }];
    }
    default:
      if (path.startsWith("/tools/")) return toolRoute(ctx, path, body);
      if (path.startsWith("/swarm/") || path === "/learn") return leadRoute(ctx, path, body);
      throw new WorkerApiError(404, "not_found", `no such control route: ${path}`);
  }
}

export async function startControlServer(ctx: Context): Promise<ControlServer> {
  const secret = randomBytes(24).toString("base64url");
  const expected = Buffer.from(secret);
  const server = createServer(async (req, res) => {
    const given = Buffer.from(String(req.headers[CONTROL_HEADER] ?? ""));
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return fail(res, 401, "unauthorized", "missing or wrong control secret");
    if (req.method !== "POST") return fail(res, 405, "method_not_allowed", "POST only");
    try {
      const [status, body] = await route(ctx, new URL(req.url ?? "/", "http://local").pathname, await readJson(req));
      send(res, status, body);
    } catch (error) {
      if (error instanceof WorkerApiError) {
        return fail(res, error.status === 0 ? 502 : error.status, error.code, error.appMessage, error.details);
      }
      ctx.log.error(`control route failed: ${(error as Error).stack ?? error}`, ctx.taskId);
      fail(res, 500, "internal_error", "the worker could not handle this call");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    secret,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
