// The control server's lead routes: what `swarm swarm ...`, `swarm learn` (and the
// MCP server's lead tools) call. Forwarded as they are: the app decides who may
// (403 for any agent that is not a lead).
import { z } from "zod";
import type { ApiClient } from "./api-client";
import { WorkerApiError } from "./api-client";
import { parseControlBody as parse } from "./control-body";

export const SWARM_VIEWS = ["tasks", "task", "agents", "report", "failures", "outcomes"] as const;

export const swarmViewBodySchema = z.strictObject({
  query: z.record(z.string().regex(/^[a-z]{1,20}$/), z.string().max(200)).default({}),
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "not a task id")
    .optional(),
});

export async function leadRoute(ctx: { api: ApiClient }, path: string, body: unknown): Promise<[number, unknown]> {
  if (path === "/learn") return [201, await ctx.api.learn(body)];
  const view = /^\/swarm\/([a-z]+)$/.exec(path)?.[1];
  if (!view || !(SWARM_VIEWS as readonly string[]).includes(view)) {
    throw new WorkerApiError(404, "not_found", `no such control route: ${path}`);
  }
  const input = parse(swarmViewBodySchema, body);
  if (view === "task" && !input.id) throw new WorkerApiError(400, "validation_failed", "id: a task id is required");
  const target = view === "task" ? `tasks/${encodeURIComponent(input.id ?? "")}` : view;
  return [200, await ctx.api.swarmView(target, input.query)];
}
