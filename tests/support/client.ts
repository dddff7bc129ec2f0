// A small typed HTTP client for the integration tests.
import { inject } from "vitest";

export type Reply<T = any> = { status: number; body: T; headers: Headers };

export function server() {
  return inject("server");
}

export function client(token?: string) {
  const { baseUrl } = server();
  async function request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    init: { raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...init.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined || init.raw !== undefined) headers["content-type"] ??= "application/json";
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: init.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }
  return {
    get: <T = any>(path: string) => request<T>("GET", path),
    post: <T = any>(path: string, body?: unknown, init?: { raw?: string; headers?: Record<string, string> }) =>
      request<T>("POST", path, body, init),
    put: <T = any>(path: string, body?: unknown, init?: { raw?: string }) => request<T>("PUT", path, body, init),
    patch: <T = any>(path: string, body?: unknown) => request<T>("PATCH", path, body),
    delete: <T = any>(path: string) => request<T>("DELETE", path),
    request,
  };
}

export function admin() {
  return client(server().adminToken);
}

let counter = 0;
/** A unique, valid agent name per call (tests share one database). */
export function uniqueName(prefix = "agent"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export async function createAgent(body: Record<string, unknown> = {}) {
  const reply = await admin().post("/api/v1/agents", { name: uniqueName(), ...body });
  if (reply.status !== 201) throw new Error(`could not create an agent: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.agent as { id: string; name: string; securityProfile: string; role: string };
}

export async function createWorkerToken(agentId: string) {
  const reply = await admin().post(`/api/v1/agents/${agentId}/tokens`, { name: "test worker" });
  if (reply.status !== 201) throw new Error(`could not create a worker token: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.token as string;
}

/** Signs in through next-auth's credentials endpoint as a browser would; returns the Cookie header value. */
export async function sessionCookie(
  email = server().adminEmail,
  password = server().adminPassword,
  baseUrl = server().baseUrl,
): Promise<string> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, ...value] = (pair ?? "").split("=");
      if (name) jar.set(name.trim(), value.join("="));
    }
  };
  keep(csrf);
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie() },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  keep(response);
  if (![...jar.keys()].some((name) => name.endsWith("next-auth.session-token"))) {
    throw new Error(`sign-in failed for ${email}: ${response.status}`);
  }
  return cookie();
}

/** A user with `role` and an operator API token of theirs, made through the admin API. */
export async function userWithToken(role: "admin" | "operator" | "viewer") {
  const email = `${uniqueName(role)}@test.local`;
  const password = "a-long-enough-password";
  const user = await admin().post("/api/v1/users", { email, role, password });
  if (user.status !== 201) throw new Error(`could not create a user: ${user.status} ${JSON.stringify(user.body)}`);
  const token = await admin().post("/api/v1/tokens", { name: `${role} token`, userId: user.body.user.id });
  if (token.status !== 201) throw new Error(`could not create a token: ${token.status} ${JSON.stringify(token.body)}`);
  return { id: user.body.user.id as string, email, password, token: token.body.token as string, tokenId: token.body.id as string };
}
