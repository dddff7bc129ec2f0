// Validation of a control-server request body: a failure is a 400 in the app's error shape.
import type { z } from "zod";
import { WorkerApiError } from "./api-client";

export function parseControlBody<T>(schema: z.ZodType<T>, data: unknown): T {
  const result = schema.safeParse(data);
  if (!result.success) {
    throw new WorkerApiError(
      400,
      "validation_failed",
      result.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "),
    );
  }
  return result.data;
}
