// The worker's only way to the app: HTTP with its worker token, every answer
// checked against lib/contracts so a protocol drift fails loudly, not silently.
import { z } from "zod";
import { type IdentityKind, kindToSlug, type WorkerPutIdentityBody, writeResultSchema } from "../lib/contracts/identity";
import { createMemoryResponseSchema, searchMemoryResponseSchema } from "../lib/contracts/memory";
import { bundleResponseSchema, heartbeatResponseSchema, pollResponseSchema, type TaskDto, taskSchema } from "../lib/contracts/tasks";
import { type RegisterBody, registerResponseSchema } from "../lib/contracts/worker";

export class WorkerApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
  /** Worth retrying later: the app is down, overloaded or restarting. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

type Options = { baseUrl: string; token: string; fetch?: typeof fetch; timeoutMs?: number };

export function createApiClient({ baseUrl, token, fetch: doFetch = fetch, timeoutMs = 60_000 }: Options) {
  async function call(method: string, path: string, body?: unknown, extraTimeoutMs = 0): Promise<{ status: number; data: unknown }> {
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs + extraTimeoutMs),
      });
    } catch (error) {
      throw new WorkerApiError(0, "network", `${method} ${path}: ${(error as Error).message}`);
    }
    const text = await response.text();
    let data: unknown = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    if (!response.ok) {
      const err = (data as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
      throw new WorkerApiError(
        response.status,
        err?.code ?? "http_error",
        `${method} ${path}: ${response.status} ${err?.message ?? String(text).slice(0, 200)}`,
        err?.details,
      );
    }
    return { status: response.status, data };
  }

  function parse<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
    const result = schema.safeParse(data);
    if (!result.success) throw new WorkerApiError(0, "bad_answer", `${what}: unexpected answer: ${result.error.message.slice(0, 300)}`);
    return result.data;
  }

  return {
    async register(body: RegisterBody) {
      const { data } = await call("POST", "/api/worker/register", body);
      return parse(registerResponseSchema, data, "register");
    },
    /** A claimed task, or null when none came within waitMs. */
    async poll(waitMs: number, signal?: AbortSignal): Promise<TaskDto | null> {
      const path = `/api/worker/poll?waitMs=${waitMs}`;
      let response: Response;
      try {
        const timeout = AbortSignal.timeout(waitMs + timeoutMs);
        response = await doFetch(`${baseUrl}${path}`, {
          headers: { authorization: `Bearer ${token}` },
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        if (signal?.aborted) return null;
        throw new WorkerApiError(0, "network", `GET ${path}: ${(error as Error).message}`);
      }
      if (response.status === 204) return null;
      const text = await response.text();
      let data: unknown = null;
      try {
        data = text ? JSON.parse(text) : null;
      } catch {
        data = text;
      }
      if (!response.ok) {
        const err = (data as { error?: { code?: string; message?: string } } | null)?.error;
        throw new WorkerApiError(response.status, err?.code ?? "http_error", `GET ${path}: ${response.status} ${err?.message ?? ""}`);
      }
      return parse(pollResponseSchema, data, "poll").task;
    },
    async bundle(taskId: string) {
      const { data } = await call("GET", `/api/worker/tasks/${encodeURIComponent(taskId)}/bundle`);
      return parse(bundleResponseSchema, data, "bundle");
    },
    async heartbeat(taskId: string, progress?: string) {
      const { data } = await call("POST", `/api/worker/tasks/${encodeURIComponent(taskId)}/heartbeat`, progress ? { progress } : {});
      return parse(heartbeatResponseSchema, data, "heartbeat");
    },
    async complete(taskId: string, body: { output: string; summary?: string }) {
      await call("POST", `/api/worker/tasks/${encodeURIComponent(taskId)}/complete`, body);
    },
    async fail(taskId: string, body: { failureReason: string; output?: string }) {
      await call("POST", `/api/worker/tasks/${encodeURIComponent(taskId)}/fail`, body);
    },
    async release(taskId: string, reason: string) {
      await call("POST", `/api/worker/tasks/${encodeURIComponent(taskId)}/release`, { reason });
    },
    async createTask(body: { title: string; description: string; tags: string[] }) {
      const { data } = await call("POST", "/api/worker/tasks", body);
      const parsed = z.object({ task: taskSchema }).safeParse(data);
      return parsed.success ? parsed.data.task : parse(taskSchema, data, "create task");
    },
    /** 200 applied / 202 pending; 403, 409, 413 come back as WorkerApiError. */
    async putIdentity(
      kind: IdentityKind,
      body: Partial<WorkerPutIdentityBody> & Pick<WorkerPutIdentityBody, "content" | "baseVersionId" | "reason" | "trigger">,
    ) {
      const { status, data } = await call("PUT", `/api/worker/identity/${kindToSlug(kind)}`, body);
      return { httpStatus: status, ...parse(writeResultSchema, data, "identity write") };
    },
    async storeMemory(body: { name: string; content: string; scope: "agent" | "swarm"; source: string; taskId?: string; path?: string }) {
      const { data } = await call("POST", "/api/worker/memories", body);
      return parse(createMemoryResponseSchema, data, "store memory");
    },
    async searchMemory(body: { query: string; limit?: number; scope?: "agent" | "swarm" | "all" }) {
      const { data } = await call("POST", "/api/worker/memories/search", body);
      return parse(searchMemoryResponseSchema, data, "search memory");
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
