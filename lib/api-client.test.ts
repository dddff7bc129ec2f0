// What a form shows under its fields when the API refuses a submission: the error
// shape of docs/architecture.md ({error: {code, message, details}}), as the
// browser's client (lib/api-client.ts) hands it to the forms.
import { describe, expect, it } from "vitest";
import { ApiClientError, fieldErrorsOf } from "./api-client";

const FIELDS = ["name", "role"] as const;

describe("fieldErrorsOf", () => {
  it("puts each validation message under the field its path names (first message per field)", () => {
    const error = new ApiClientError(400, "validation_failed", "Invalid request body", [
      { path: "name", message: "Use lower-case letters, digits and dashes" },
      { path: "name", message: "a second complaint" },
      { path: "role.0", message: "Pick worker or lead" },
    ]);
    expect(fieldErrorsOf(error, FIELDS)).toEqual({ name: "Use lower-case letters, digits and dashes", role: "Pick worker or lead" });
  });

  it("answers nothing when the error names no field of the form, so the form shows the message itself", () => {
    const error = new ApiClientError(400, "validation_failed", "Invalid request body", [{ path: "capabilities", message: "too long" }]);
    expect(fieldErrorsOf(error, FIELDS)).toEqual({});
    expect(fieldErrorsOf(new ApiClientError(503, "unavailable", "Database unavailable"), FIELDS)).toEqual({});
    expect(fieldErrorsOf(new Error("offline"), FIELDS)).toEqual({});
  });

  it("puts the whole message under the field a status points at (a taken name)", () => {
    const error = new ApiClientError(409, "conflict", "An agent named ada already exists");
    expect(fieldErrorsOf(error, FIELDS, { 409: "name" })).toEqual({ name: "An agent named ada already exists" });
  });
});
