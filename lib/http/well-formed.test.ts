import { describe, expect, it } from "vitest";
import { findJsonProblem, MAX_DEPTH } from "./well-formed";

describe("JSON a handler never sees", () => {
  it("names the field holding a lone surrogate, at any depth, in values and in keys", () => {
    expect(findJsonProblem(JSON.parse('{"displayName":"\\ud800"}'))?.path).toBe("displayName");
    expect(findJsonProblem(JSON.parse('{"items":[{"name":"ok"},{"name":"x\\udfff"}]}'))?.path).toBe("items.1.name");
    expect(findJsonProblem(JSON.parse('{"a\\udc00":1}'))?.message).toContain("key");
    expect(findJsonProblem(JSON.parse('"\\ud83d"'))?.path).toBe("");
  });

  it("names the field holding a NUL character (PostgreSQL text cannot store one), in values and in keys", () => {
    expect(findJsonProblem(JSON.parse('{"content":"a\\u0000b"}'))).toMatchObject({
      path: "content",
      message: expect.stringContaining("NUL"),
    });
    expect(findJsonProblem(JSON.parse('{"items":[{"name":"\\u0000"}]}'))?.path).toBe("items.0.name");
    expect(findJsonProblem(JSON.parse('{"a\\u0000":1}'))?.message).toContain("key");
  });

  it("accepts proper pairs (emoji), other text and non-strings", () => {
    expect(findJsonProblem({ name: "deploy 🚀 ünïcödé", n: 3, ok: true, none: null, list: ["日本"] })).toBeNull();
    expect(findJsonProblem(JSON.parse('"\\ud83d\\ude80"'))).toBeNull();
  });

  it("refuses nesting past the limit without running out of stack, however deep", () => {
    const deep = JSON.parse(`${"[".repeat(200_000)}${"]".repeat(200_000)}`);
    expect(findJsonProblem(deep)?.message).toContain(`${MAX_DEPTH} levels`);
    let fine: unknown = 1;
    for (let i = 0; i < MAX_DEPTH - 1; i++) fine = { a: fine };
    expect(findJsonProblem(fine)).toBeNull();
  });
});
