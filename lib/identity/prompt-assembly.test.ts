import { describe, expect, it } from "vitest";
import { assemblePrompt, capFile, DEFAULT_PROMPT_FILE_CAP_CHARS, type PromptSources, promptFileCapChars } from "./prompt-assembly";

const files: PromptSources = {
  AGENT: "# AGENT rules",
  SOUL: "# SOUL values",
  IDENTITY: "# IDENTITY name",
  USER: "# USER prefs",
  CAPABILITIES: "tools:\n  allow: [read]",
  BOOTSTRAP: "# Bootstrap ritual",
};

describe("assemblePrompt", () => {
  it("orders AGENT, SOUL, IDENTITY, USER, capabilities, then the base sections", () => {
    const { systemPrompt, bootstrap } = assemblePrompt({ files, cap: 32_000 });
    expect(bootstrap).toBe(false);
    const order = [
      "# AGENT rules",
      "# SOUL values",
      "# IDENTITY name",
      "# USER prefs",
      "allow: [read]",
      "## Environment Setup",
      "## Operational Knowledge",
      "## How You Are Built",
    ].map((text) => systemPrompt.indexOf(text));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(systemPrompt).not.toContain("Bootstrap ritual");
  });

  it("never injects TOOLS.md but tells the agent to read it on demand", () => {
    const { systemPrompt } = assemblePrompt({ files, cap: 32_000 });
    // docs/architecture.md, "The agent's environment": its own files are in $SWARMDECK_HOME, apart from the project's checkout.
    expect(systemPrompt).toContain("`$SWARMDECK_HOME/TOOLS.md`");
    expect(systemPrompt).toMatch(/NOT part of this\s+prompt/);
  });

  it("points the agent at its own files where the worker puts them, never at a fixed folder", () => {
    const { systemPrompt } = assemblePrompt({ files, cap: 32_000 });
    expect(systemPrompt).toContain("`$SWARMDECK_HOME/memory/`");
    expect(systemPrompt).toContain("`$SWARMDECK_HOME/start-up.sh`");
    expect(systemPrompt).not.toContain("/workspace");
  });

  it("is bootstrap mode with no SOUL: AGENT.md's rules first, then the ritual (issue 12)", () => {
    const result = assemblePrompt({ files: { ...files, SOUL: null, IDENTITY: null, USER: null }, cap: 32_000 });
    expect(result.bootstrap).toBe(true);
    const agentAt = result.systemPrompt.indexOf(files.AGENT as string);
    const ritualAt = result.systemPrompt.indexOf("# Bootstrap ritual");
    expect(agentAt).toBe(0);
    expect(ritualAt).toBeGreaterThan(agentAt);
    expect(result.systemPrompt).toContain("How You Are Built");
  });

  it("stays in bootstrap mode until SOUL and IDENTITY both exist", () => {
    const halfway = assemblePrompt({ files: { ...files, IDENTITY: null }, cap: 32_000 });
    expect(halfway.bootstrap).toBe(true);
    expect(halfway.systemPrompt).toContain(files.SOUL as string);
    expect(assemblePrompt({ files: { ...files, BOOTSTRAP: null }, cap: 32_000 }).bootstrap).toBe(false);
  });

  it("falls back to the name Assistant when IDENTITY.md is missing", () => {
    expect(assemblePrompt({ files: { ...files, IDENTITY: null, BOOTSTRAP: null }, cap: 32_000 }).systemPrompt).toContain('"Assistant"');
  });

  it("cuts each file at the cap with a visible marker, and reports which", () => {
    const longSoul = `# SOUL\n${"I value careful work.\n".repeat(500)}`;
    const { systemPrompt, truncated } = assemblePrompt({ files: { ...files, SOUL: longSoul }, cap: 1_000 });
    expect(truncated).toEqual(["SOUL.md"]);
    expect(systemPrompt).toMatch(/\[… SOUL\.md truncated: \d+ of 11,006 characters shown \(per-file cap\)/);
    expect(systemPrompt).toContain("# AGENT rules");
    expect(systemPrompt.length).toBeLessThan(longSoul.length);
  });
});

describe("capFile", () => {
  it("leaves short files alone", () => {
    expect(capFile("USER.md", "short", 100)).toEqual({ text: "short", truncated: false });
  });

  it("cuts at a line break near the cap and never splits a surrogate pair", () => {
    const text = `${"a".repeat(95)}\n${"b".repeat(50)}`;
    expect(capFile("X.md", text, 100).text.startsWith(`${"a".repeat(95)}\n\n[… X.md truncated: 95 of 146`)).toBe(true);
    const emoji = `${"x".repeat(9)}😀${"y".repeat(20)}`;
    const cut = capFile("E.md", emoji, 10).text;
    expect(cut.startsWith(`${"x".repeat(9)}\n`)).toBe(true);
  });
});

describe("promptFileCapChars", () => {
  it("defaults to about 8,000 tokens and reads SWARMDECK_PROMPT_FILE_CAP_CHARS", () => {
    expect(promptFileCapChars({})).toBe(DEFAULT_PROMPT_FILE_CAP_CHARS);
    expect(DEFAULT_PROMPT_FILE_CAP_CHARS).toBe(32_000);
    expect(promptFileCapChars({ SWARMDECK_PROMPT_FILE_CAP_CHARS: "5000" })).toBe(5000);
    expect(promptFileCapChars({ SWARMDECK_PROMPT_FILE_CAP_CHARS: "nonsense" })).toBe(DEFAULT_PROMPT_FILE_CAP_CHARS);
    expect(promptFileCapChars({ SWARMDECK_PROMPT_FILE_CAP_CHARS: "-1" })).toBe(DEFAULT_PROMPT_FILE_CAP_CHARS);
  });
});
