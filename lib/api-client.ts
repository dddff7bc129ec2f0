// The browser's client for the operator API: JSON in, JSON out, and the server's
// error shape turned into an Error whose message is fit to show in a toast.
export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiClientError";
  }
}

export async function api<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: init.body === undefined ? undefined : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
    credentials: "same-origin",
  });
  if (response.status === 204) return undefined as T;
  const payload = (await response.json().catch(() => null)) as { error?: { code: string; message: string; details?: unknown } } | null;
  if (!response.ok) {
    const error = payload?.error;
    throw new ApiClientError(
      response.status,
      error?.code ?? "http_error",
      error?.message ?? `Request failed (${response.status})`,
      error?.details,
    );
  }
  return payload as T;
}

/** "validation_failed" details as one readable line. */
export function describeError(error: unknown): string {
  if (error instanceof ApiClientError && Array.isArray(error.details) && error.details.length > 0) {
    const first = error.details[0] as { path?: string; message?: string };
    return `${error.message}: ${first.path ? `${first.path}: ` : ""}${first.message ?? ""}`;
  }
  return error instanceof Error ? error.message : String(error);
}
