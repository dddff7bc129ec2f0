// One error type and one wire shape for every API route:
// {"error": {"code", "message", "details"?}} with the matching HTTP status.
import { ZodError } from "zod";

export type ErrorCode =
  | "bad_request"
  | "validation_failed"
  | "invalid_json"
  | "unauthorized"
  | "forbidden"
  | "locked"
  | "profile_forbids"
  | "not_found"
  | "method_not_allowed"
  | "not_acceptable"
  | "conflict"
  | "stale_base"
  | "already_finished"
  | "length_required"
  | "payload_too_large"
  | "unsupported_media_type"
  | "headers_too_large"
  | "rate_limited"
  | "not_implemented"
  | "internal_error";

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  locked: 403,
  profile_forbids: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  stale_base: 409,
  already_finished: 409,
  length_required: 411,
  payload_too_large: 413,
  unsupported_media_type: 415,
  // Answered by scripts/serve.mjs itself, before any handler (Node's 16 KiB limit).
  headers_too_large: 431,
  rate_limited: 429,
  not_implemented: 501,
  internal_error: 500,
};

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = STATUS[code];
  }

  toBody() {
    return { error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) } };
  }
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  431: "headers_too_large",
  500: "internal_error",
};

const MESSAGE_BY_CODE: Partial<Record<ErrorCode, string>> = {
  method_not_allowed: "This path does not take that method",
  not_found: "There is nothing at this path",
  bad_request: "The request is not valid",
  internal_error: "Something went wrong on our side",
};

/**
 * The error for an answer that came with only a status (Next's bodiless 405s and 400s,
 * next-auth's plain-text errors): the code that status stands for and a generic message.
 */
export function errorForStatus(status: number): ApiError {
  const code = CODE_BY_STATUS[status] ?? (status >= 500 ? "internal_error" : "bad_request");
  return new ApiError(code, MESSAGE_BY_CODE[code] ?? "The request could not be served");
}

export const notFound = (what: string) => new ApiError("not_found", `${what} not found`);
export const forbidden = (message = "You are not allowed to do this") => new ApiError("forbidden", message);

/** 429 with Retry-After (whole seconds, at least 1), also given in details for clients that read only the body. */
export function rateLimited(message: string, retryAfterMs: number, details: Record<string, unknown> = {}): ApiError {
  const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError("rate_limited", message, { ...details, retryAfterSeconds });
}

/** The error as a status, its JSON text and headers (lib/api/handler.ts makes the Response, or the fast path writes it). */
export function errorOutcome(error: ApiError): { status: number; json: string; headers?: Record<string, string> } {
  const json = JSON.stringify(error.toBody());
  const details = error.details as { retryAfterSeconds?: unknown; allow?: unknown } | undefined;
  if (error.code === "rate_limited" && typeof details?.retryAfterSeconds === "number") {
    return { status: error.status, json, headers: { "retry-after": String(details.retryAfterSeconds) } };
  }
  // A 405 names the methods the path takes (RFC 9110, 15.5.6), when the refusal knows them.
  if (error.code === "method_not_allowed" && typeof details?.allow === "string") {
    return { status: error.status, json, headers: { allow: details.allow } };
  }
  return { status: error.status, json };
}

export function errorResponse(error: ApiError): Response {
  const { status, json, headers } = errorOutcome(error);
  return new Response(json, { status, headers: { ...headers, "content-type": "application/json" } });
}

/** Prisma's known request errors, recognised by code without importing the runtime. */
function prismaCode(error: unknown): string | undefined {
  if (typeof error === "object" && error && "code" in error && typeof (error as { code: unknown }).code === "string") {
    const code = (error as { code: string }).code;
    return /^P\d{4}$/.test(code) ? code : undefined;
  }
  return undefined;
}

/** Turns anything thrown inside a handler into an ApiError; unknown errors are logged, never shown. */
export function toApiError(error: unknown, context = "request"): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ZodError) {
    return new ApiError(
      "validation_failed",
      "The request is not valid",
      error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    );
  }
  const code = prismaCode(error);
  if (code === "P2002") return new ApiError("conflict", "A record with these values already exists");
  if (code === "P2025") return new ApiError("not_found", "The record was not found");
  const id = crypto.randomUUID();
  console.error(`[swarmdeck] ${context} failed (error id ${id}):`, error);
  return new ApiError("internal_error", `Something went wrong on our side (error id ${id})`);
}
