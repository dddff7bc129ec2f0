// The worker's only way to the app: HTTP with its worker token, every answer
// checked against lib/contracts so a protocol drift fails loudly, not silently.
import { z } from "zod";
import {
  agentProposalsResponseSchema,
  type IdentityKind,
  kindToSlug,
  type WorkerPutIdentityBody,
  writeResultSchema,
} from "../lib/contracts/identity";
import { learningResponseSchema } from "../lib/contracts/lead";
import { createMemoryResponseSchema, searchMemoryResponseSchema } from "../lib/contracts/memory";
import {
  bundleResponseSchema,
  heartbeatResponseSchema,
  pollResponseSchema,
  type SessionTranscriptBody,
  type TaskDto,
  taskSchema,
} from "../lib/contracts/tasks";
import {
  builtinChangeSchema,
  toolChangeResultSchema,
  type WorkerBuiltinChangeBody,
  type WorkerWriteToolBody,
  workerToolsResponseSchema,
} from "../lib/contracts/tools";
import { type RegisterBody, registerResponseSchema, type SetupStatusBody, setupScriptResponseSchema } from "../lib/contracts/worker";

export class WorkerApiError extends Error {
  /**
   * What the app (or the worker) said, without the request line and status the
   * message starts with for the worker's log: what the agent is shown.
   */
  readonly appMessage: string;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    appMessage?: string,
  ) {
    super(message);
    this.appMessage = appMessage ?? message;
  }
  /** The answer was the app's own error shape ({error: {code, message}}), not a proxy's or another server's page. */
  fromApp = false;
  /** Worth retrying later: the app is down, overloaded or restarting. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
  /** How long a 429 asked to wait (its Retry-After, which the app also gives in details.retryAfterSeconds), else null. */
  get retryAfterMs(): number | null {
    const seconds = Number((this.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds);
    return this.status === 429 && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
  }
}

type Options = { baseUrl: string; token: string; fetch?: typeof fetch; timeoutMs?: number };

/** A 2xx answer's body: its JSON, else its text (which the caller's schema then refuses), null when empty. */
async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The error for an answer that is not 2xx. Redirects are not followed (a POST would
 * come back a GET, and the token would go where it was sent): a 3xx says where to.
 */
async function answerError(method: string, path: string, response: Response): Promise<WorkerApiError> {
  const text = await response.text();
  if (response.status >= 300 && response.status < 400) {
    const to = response.headers.get("location") ?? "(no Location)";
    return new WorkerApiError(
      response.status,
      "redirect",
      `${method} ${path}: ${response.status} redirected to ${to}`,
      undefined,
      `redirected to ${to}`,
    );
  }
  let err: { code?: unknown; message?: unknown; details?: unknown } | undefined;
  try {
    err = (JSON.parse(text) as { error?: typeof err } | null)?.error;
  } catch {}
  const fromApp = typeof err?.code === "string" && typeof err?.message === "string";
  const said = fromApp ? String(err?.message) : text.slice(0, 200);
  const error = new WorkerApiError(
    response.status,
    fromApp ? String(err?.code) : "http_error",
    `${method} ${path}: ${response.status} ${said}`,
    fromApp ? err?.details : undefined,
    said,
  );
  error.fromApp = fromApp;
  return error;
}

/**
 * Text from the agent's processes (their output, a reason quoting it, a transcript) as
 * the app takes it: a NUL or a lone UTF-16 surrogate in any string makes the app refuse
 * the whole body (400, lib/http/well-formed.ts), and a report refused that way left the
 * task in progress until it stalled and ran again. Each becomes U+FFFD, the replacement
 * character. Only for reports: what the agent writes as its own (identity, memories) is
 * sent as written.
 */
export function reportText(_key: string, value: unknown): unknown {
  return typeof value === "string" ? value.replaceAll("\u0000", "\uFFFD").toWellFormed() : value;
}

export function createApiClient({ baseUrl, token, fetch: doFetch = fetch, timeoutMs = 60_000 }: Options) {
  async function call(
    method: string,
    path: string,
    body?: unknown,
    extraTimeoutMs = 0,
    replacer?: (key: string, value: unknown) => unknown,
  ): Promise<{ status: number; data: unknown }> {
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body, replacer),
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs + extraTimeoutMs),
      });
    } catch (error) {
      const why = (error as Error).message;
      throw new WorkerApiError(0, "network", `${method} ${path}: ${why}`, undefined, `the app could not be reached: ${why}`);
    }
    if (!response.ok) throw await answerError(method, path, response);
    return { status: response.status, data: await bodyOf(response) };
  }

  /**
   * complete / fail. The outcome matters more than the rest of the report: refused
   * (400: an app older than the `session` field, or a body it will not take), it goes
   * again without the session, then as `minimal` (the outcome and the app's refusal), so
   * that the task does not stay in progress until it stalls and runs again.
   */
  async function finishCall(path: string, body: { session?: SessionTranscriptBody }, minimal: (refusal: string) => object) {
    const refused = (error: unknown): error is WorkerApiError => error instanceof WorkerApiError && error.status === 400;
    try {
      await call("POST", path, body, 0, reportText);
      return;
    } catch (error) {
      if (!refused(error)) throw error;
      if (!body.session) return await call("POST", path, minimal(error.appMessage), 0, reportText);
    }
    const { session: _dropped, ...rest } = body;
    try {
      await call("POST", path, rest, 0, reportText);
    } catch (error) {
      if (!refused(error)) throw error;
      await call("POST", path, minimal(error.appMessage), 0, reportText);
    }
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
          redirect: "manual",
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        if (signal?.aborted) return null;
        throw new WorkerApiError(0, "network", `GET ${path}: ${(error as Error).message}`);
      }
      if (response.status === 204) return null;
      if (!response.ok) throw await answerError("GET", path, response);
      return parse(pollResponseSchema, await bodyOf(response), "poll").task;
    },
    /** This agent's latest proposals and the decisions on them. */
    async proposals() {
      const { data } = await call("GET", "/api/worker/proposals");
      return parse(agentProposalsResponseSchema, data, "proposals");
    },
    async bundle(taskId: string) {
      const { data } = await call("GET", `/api/worker/tasks/${encodeURIComponent(taskId)}/bundle`);
      return parse(bundleResponseSchema, data, "bundle");
    },
    async heartbeat(taskId: string, progress?: string, lastActivity?: { at: string; what: string }) {
      const { data } = await call(
        "POST",
        `/api/worker/tasks/${encodeURIComponent(taskId)}/heartbeat`,
        { ...(progress ? { progress } : {}), ...(lastActivity ? { lastActivity } : {}) },
        0,
        reportText,
      );
      return parse(heartbeatResponseSchema, data, "heartbeat");
    },
    async complete(taskId: string, body: { output: string; summary?: string; session?: SessionTranscriptBody }) {
      await finishCall(`/api/worker/tasks/${encodeURIComponent(taskId)}/complete`, body, (refusal) => ({
        output: `[the app refused the worker's report of this task (${refusal}); the worker's log has its output]\n${body.output.slice(-2000)}`,
      }));
    },
    async fail(taskId: string, body: { failureReason: string; output?: string; session?: SessionTranscriptBody }) {
      await finishCall(`/api/worker/tasks/${encodeURIComponent(taskId)}/fail`, body, (refusal) => ({
        failureReason: `${body.failureReason.slice(0, 2000)}\n[the app refused the worker's full report (${refusal})]`,
      }));
    },
    /** The task's status after the give-back: pending or unassigned, or failed when it used the last attempt. */
    async release(taskId: string, reason: string): Promise<string | null> {
      const { data } = await call("POST", `/api/worker/tasks/${encodeURIComponent(taskId)}/release`, { reason }, 0, reportText);
      return (data as { task?: { status?: unknown } } | null)?.task?.status?.toString() ?? null;
    },
    async setupScript() {
      const { data } = await call("GET", "/api/worker/setup-script");
      return parse(setupScriptResponseSchema, data, "setup script");
    },
    async setupStatus(body: Partial<SetupStatusBody> & Pick<SetupStatusBody, "status" | "hash">) {
      await call("POST", "/api/worker/setup-status", body, 0, reportText);
    },
    async createTask(body: { title: string; description: string; tags: string[] }) {
      const { data } = await call("POST", "/api/worker/tasks", body);
      const parsed = z.object({ task: taskSchema }).safeParse(data);
      return parsed.success ? parsed.data.task : parse(taskSchema, data, "create task");
    },
    /** 200 applied / 202 pending; 403, 409, 413 come back as WorkerApiError. */
    async putIdentity(
      kind: IdentityKind,
      body: Omit<Partial<WorkerPutIdentityBody>, "trigger"> & Pick<WorkerPutIdentityBody, "content" | "baseVersionId" | "reason">,
    ) {
      const { status, data } = await call("PUT", `/api/worker/identity/${kindToSlug(kind)}`, body);
      return { httpStatus: status, ...parse(writeResultSchema, data, "identity write") };
    },
    async storeMemory(body: { name: string; content: string; scope: "agent" | "swarm"; source: string; taskId?: string; path?: string }) {
      const { data } = await call("POST", "/api/worker/memories", body);
      return parse(createMemoryResponseSchema, data, "store memory");
    },
    /** A lead's read of the swarm (GET /api/worker/swarm/...); the app answers 403 to any other agent. */
    async swarmView(path: string, query: Record<string, string>) {
      const search = new URLSearchParams(query).toString();
      const { data } = await call("GET", `/api/worker/swarm/${path}${search ? `?${search}` : ""}`);
      return data;
    },
    /** A lead's learning for one agent or the swarm (POST /api/worker/learnings). */
    async learn(body: unknown) {
      const { data } = await call("POST", "/api/worker/learnings", body);
      return parse(learningResponseSchema, data, "learning");
    },
    async searchMemory(body: { query: string; limit?: number; scope?: "agent" | "swarm" | "all" }) {
      const { data } = await call("POST", "/api/worker/memories/search", body);
      return parse(searchMemoryResponseSchema, data, "search memory");
    },
    /** The agent's registered tools (compiled code included) and what it may change. */
    async listTools() {
      const { data } = await call("GET", "/api/worker/tools");
      return parse(workerToolsResponseSchema, data, "list tools");
    },
    /** 201 applied / 202 pending review; refusals come back as WorkerApiError. */
    async writeTool(body: WorkerWriteToolBody) {
      const { status, data } = await call("POST", "/api/worker/tools", body);
      return { httpStatus: status, ...parse(toolChangeResultSchema, data, "write tool") };
    },
    /** A built-in changed for this agent: merged (201) or abandoned (200), with branch, commit and test result. */
    async writeBuiltin(body: WorkerBuiltinChangeBody) {
      const { data } = await call("POST", "/api/worker/builtin-tools", body, 60_000);
      return parse(builtinChangeSchema, data, "change built-in");
    },
    async deleteTool(name: string, query: { reason?: string; taskId?: string }) {
      const params = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1])));
      const { status, data } = await call("DELETE", `/api/worker/tools/${encodeURIComponent(name)}?${params}`);
      return { httpStatus: status, ...parse(toolChangeResultSchema, data, "delete tool") };
    },
    async reportToolCall(name: string, body: { ok: boolean; durationMs: number; error?: string }) {
      await call("POST", `/api/worker/tools/${encodeURIComponent(name)}/calls`, body);
    },
    async getIdentity(kind: IdentityKind) {
      const { data } = await call("GET", `/api/worker/identity/${kindToSlug(kind)}`);
      return parse(
        z.object({ kind: z.string(), content: z.string(), versionId: z.string().nullable(), exists: z.boolean() }),
        data,
        "identity",
      );
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
