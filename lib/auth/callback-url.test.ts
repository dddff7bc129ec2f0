import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "./callback-url";

// What the login page receives in ?callbackUrl= once the query string is decoded.
describe("the page after sign-in", () => {
  it("refuses the issue's open redirects: /%5Cevil.example/, /%09/evil.example/, /%5C%5Cevil.example", () => {
    for (const raw of ["/\\evil.example/", "/\t/evil.example/", "/\\\\evil.example"]) {
      expect(safeCallbackPath(raw)).toBe("/");
    }
  });

  it("refuses other hosts however they are spelled", () => {
    const attempts = [
      "//evil.example",
      "https://evil.example/",
      "http:evil.example",
      "/\n/evil.example",
      "\\/evil.example",
      "/.//evil.example",
      "javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      " //evil.example",
      "http://swarmdeck.invalid@evil.example/",
    ];
    for (const raw of attempts) {
      const path = safeCallbackPath(raw);
      expect(new URL(path, "http://app.local").origin, raw).toBe("http://app.local");
      expect(path.startsWith("/") && !path.startsWith("//")).toBe(true);
    }
  });

  it("keeps a path on this app with its query and fragment", () => {
    expect(safeCallbackPath("/settings?tab=tokens")).toBe("/settings?tab=tokens");
    expect(safeCallbackPath("/agents/abc/identity#soul")).toBe("/agents/abc/identity#soul");
    expect(safeCallbackPath("/%5Cevil.example/")).toBe("/%5Cevil.example/");
  });

  it("falls back to the dashboard when there is nothing usable", () => {
    expect(safeCallbackPath(undefined)).toBe("/");
    expect(safeCallbackPath("")).toBe("/");
  });
});
