// One call to the worker's control server, as the agent makes it: `swarm` and
// `swarm mcp` both use this (SWARMDECK_CONTROL_URL + the per-task secret); the
// worker adds its own token, which the agent never holds.
import { CONTROL_HEADER, UsageError } from "./swarm-args";

export type ControlBody = {
  error?: { code?: string; message?: string; details?: unknown };
  [key: string]: unknown;
};
export type ControlAnswer = { status: number; body: ControlBody | null };

/** The largest request body the worker's control server takes (worker/control-server.ts answers 413 beyond). */
export const MAX_CONTROL_BODY_BYTES = 2 * 1024 * 1024;

export async function controlCall(path: string, body: unknown): Promise<ControlAnswer> {
  const url = process.env.SWARMDECK_CONTROL_URL;
  const secret = process.env.SWARMDECK_CONTROL_SECRET;
  if (!url || !secret) throw new UsageError("swarm only works inside a Swarmdeck task (SWARMDECK_CONTROL_URL is not set)");
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", [CONTROL_HEADER]: secret },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: ControlBody | null = null;
  try {
    parsed = JSON.parse(text) as ControlBody;
  } catch {
    parsed = { error: { code: "bad_answer", message: text.slice(0, 300) } };
  }
  return { status: response.status, body: parsed };
}

/**
 * What the app found wrong with each field of a refused call (`details` of a 400
 * validation_failed), one indented line each, or "" when it names no fields: without
 * them the agent reads only "The request is not valid" and cannot tell what to change.
 */
export function fieldProblems(details: unknown): string {
  if (!Array.isArray(details)) return "";
  return details
    .flatMap((item: { path?: unknown; message?: unknown }) =>
      item && typeof item.message === "string"
        ? [`  ${typeof item.path === "string" && item.path ? `${item.path}: ` : ""}${item.message}`]
        : [],
    )
    .join("\n");
}
