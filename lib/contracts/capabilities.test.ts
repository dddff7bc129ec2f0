import { describe, expect, it } from "vitest";
import {
  DEFAULT_CAPABILITIES,
  narrowCapabilities,
  parseCapabilities,
  readCapabilities,
  splitToolList,
  upgradeCapabilities,
} from "./capabilities";

const valid = `tools:
  allow: [Read, Edit, "Bash(npm test:*)", mcp__swarm__memory_search]
  deny: [WebSearch]
network: off
limits:
  max_task_minutes: 30
  max_turns: 20
`;

describe("capabilities.yaml", () => {
  it("reads a valid file with its tools, network switch and limits", () => {
    const parsed = parseCapabilities(valid);
    expect(parsed).toEqual({
      ok: true,
      value: {
        tools: { allow: ["Read", "Edit", "Bash(npm test:*)", "mcp__swarm__memory_search"], deny: ["WebSearch"] },
        network: "off",
        self_extension: "on",
        limits: { max_task_minutes: 30, max_turns: 20, max_output_chars: 200_000 },
      },
    });
  });

  it("an empty file means the defaults: the usual coding tools and an hour per task", () => {
    const parsed = parseCapabilities("# nothing here\n");
    expect(parsed.ok && parsed.value.tools.allow).toEqual(["Bash", "Read", "Write", "Edit", "Glob", "Grep"]);
    expect(parsed.ok && parsed.value.limits.max_task_minutes).toBe(60);
  });

  it("points at the line of an unknown tool and suggests Claude Code's name", () => {
    const parsed = parseCapabilities("tools:\n  allow:\n    - Read\n    - web_fetch\n");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues).toHaveLength(1);
    expect(parsed.issues[0]).toMatchObject({ path: "tools.allow.1", line: 4, column: 7 });
    expect(parsed.issues[0]?.message).toMatch(/did you mean WebFetch/);
  });

  it("refuses keys it would not enforce, at the key's line", () => {
    const parsed = parseCapabilities("limits:\n  max_task_minutes: 10\n  max_tokens_per_task: 1000\n");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues[0]).toMatchObject({ path: "limits.max_tokens_per_task", line: 3, column: 3 });
  });

  it("refuses a time limit that is not a positive whole number of minutes, and broken YAML", () => {
    for (const text of ["limits:\n  max_task_minutes: 0\n", "limits:\n  max_task_minutes: 2.5\n", "limits:\n  max_task_minutes: soon\n"]) {
      const parsed = parseCapabilities(text);
      expect(parsed.ok ? null : parsed.issues[0]).toMatchObject({ path: "limits.max_task_minutes", line: 2 });
    }
    const broken = parseCapabilities("tools:\n  allow: [Read\n");
    expect(broken.ok).toBe(false);
    expect(parseCapabilities("- Read\n- Write\n").ok).toBe(false);
  });

  it("a worker's environment narrows the tools and limits, never widens them", () => {
    const caps = { ...DEFAULT_CAPABILITIES, tools: { allow: ["Read", "Bash", "Edit(src/**)"], deny: ["Write"] } };
    const effective = narrowCapabilities(caps, {
      allowedTools: ["Read", "Bash(git log:*)", "Edit", "WebFetch"],
      deniedTools: ["Grep"],
      maxTaskMinutes: 600,
      maxTurns: 5,
    });
    expect(effective.allowedTools.sort()).toEqual(["Bash(git log:*)", "Edit(src/**)", "Read"]);
    expect(effective.deniedTools.sort()).toEqual(["Grep", "Write"]);
    expect(effective.maxTaskMinutes).toBe(60);
    expect(effective.maxTurns).toBe(5);
  });

  it("network: off denies the web tools even when allowed", () => {
    const effective = narrowCapabilities({ ...DEFAULT_CAPABILITIES, network: "off", tools: { allow: ["Read", "WebFetch"], deny: [] } });
    expect(effective.allowedTools).toEqual(["Read"]);
    expect(effective.deniedTools).toEqual(expect.arrayContaining(["WebFetch", "WebSearch"]));
  });

  it("splits an ALLOWED_TOOLS list without breaking rules that hold commas", () => {
    expect(splitToolList("Read, Bash(git log:*,x), Edit")).toEqual(["Read", "Bash(git log:*,x)", "Edit"]);
  });
});

// The file every agent got before the schema existed (its template, filled in).
const olderShape = `# capabilities.yaml — builder
# Tools, scopes and limits. Operators set these; agents cannot change them.
tools:
  allow:
    - read
    - write
    - edit
    - bash
    - grep
    - glob
    - web_fetch
  deny: []
scopes:
  filesystem: /workspace
  network: allowlist
  git:
    push: branches-only
limits:
  max_task_minutes: 45
  max_tokens_per_task: 200000
  max_concurrent_tasks: 1
`;

describe("capabilities.yaml in its older shape", () => {
  it("is not valid as it stands, but reads as the same cage in the current shape, saying what changed", () => {
    expect(parseCapabilities(olderShape).ok).toBe(false);
    const read = readCapabilities(olderShape);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.tools.allow).toEqual(["Read", "Write", "Edit", "Bash", "Grep", "Glob", "WebFetch"]);
    expect(read.value.tools.deny).toEqual([]);
    expect(read.value.network).toBe("on");
    expect(read.value.limits.max_task_minutes).toBe(45);
    const notes = read.upgrade?.notes.join("\n") ?? "";
    expect(notes).toContain('"web_fetch" read as WebFetch');
    expect(notes).toContain("limits.max_tokens_per_task: dropped");
    expect(notes).toContain("limits.max_concurrent_tasks: dropped (set it on the agent itself");
    expect(notes).toContain("scopes.filesystem, scopes.git: dropped");
    // The upgraded text is itself a valid file an operator can save, and its comments say what happened.
    const upgraded = parseCapabilities(read.upgrade!.text);
    expect(upgraded.ok && upgraded.value).toEqual(read.value);
    expect(read.upgrade!.text).toMatch(/^# capabilities.yaml, upgraded from its older shape/);
  });

  it("never widens the cage: a closed network stays closed, unknown tools are not granted, denials are kept", () => {
    const read = readCapabilities(
      "tools:\n  allow: [read, bash, send_email]\n  deny: [web_search, bash(rm:*)]\nscopes:\n  network: none\nlimits:\n  max_task_minutes: 5000\n",
    );
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.tools.allow).toEqual(["Read", "Bash"]);
    expect(read.value.tools.deny).toEqual(["WebSearch", "Bash(rm:*)"]);
    expect(read.value.network).toBe("off");
    // A limit above what the schema allows is read as the largest allowed, not as "no limit".
    expect(read.value.limits.max_task_minutes).toBe(1440);
    expect(narrowCapabilities(read.value).deniedTools).toEqual(expect.arrayContaining(["WebFetch", "WebSearch"]));
    expect(read.upgrade?.notes.join("\n")).toContain('tools.allow: dropped "send_email"');
  });

  it("a file that is no cage at all (or not YAML) is not guessed at: its problems stand", () => {
    for (const text of ["tools: 5\n", "tools:\n  allow: yes-please\n  deny: {a: 1}\n", "limits: 30\n", "tools: [Read\n"]) {
      const read = readCapabilities(text);
      expect(read.ok, text).toBe(false);
      expect(upgradeCapabilities(text), text).toBeNull();
    }
    // A valid file needs no upgrade and is read as it is.
    expect(upgradeCapabilities(valid)).toBeNull();
    expect(readCapabilities(valid)).toMatchObject({ ok: true, upgrade: null });
  });
});
