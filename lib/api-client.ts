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

/**
 * An API error as messages under a form's fields: validation details by the first
 * segment of their path, or the whole message under the field a status points at
 * (a 409 on a taken name). Empty when the answer names none of `fields`: the form
 * then shows the message on its own, so no error goes unseen.
 */
export function fieldErrorsOf<K extends string>(
  error: unknown,
  fields: readonly K[],
  byStatus: Partial<Record<number, K>> = {},
): Partial<Record<K, string>> {
  if (!(error instanceof ApiClientError)) return {};
  const errors: Partial<Record<K, string>> = {};
  const field = byStatus[error.status];
  if (field) {
    errors[field] = error.message;
    return errors;
  }
  if (!Array.isArray(error.details)) return {};
  for (const detail of error.details as { path?: unknown; message?: unknown }[]) {
    const key = typeof detail.path === "string" ? (detail.path.split(".")[0] as K) : undefined;
    if (key && fields.includes(key) && !errors[key] && typeof detail.message === "string") errors[key] = detail.message;
  }
  return errors;
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
