// capabilities.yaml: the cage an operator sets for an agent (reference 002). The app
// validates it when it is saved (400 `invalid_capabilities`, with line and column for
// the editor), and the worker enforces what it parses: the tools Claude Code gets, the
// task time limit and the other limits below. A worker's environment may narrow it,
// never widen it (narrowCapabilities).
import { isMap, LineCounter, parseDocument, stringify } from "yaml";
import { z } from "zod";

/** Claude Code's built-in tools, as its `--allowedTools` / permission rules name them. */
export const CLAUDE_CODE_TOOLS = [
  "Bash",
  "BashOutput",
  "Edit",
  "ExitPlanMode",
  "Glob",
  "Grep",
  "KillShell",
  "LS",
  "MultiEdit",
  "NotebookEdit",
  "NotebookRead",
  "Read",
  "SlashCommand",
  "Skill",
  "Task",
  "TodoWrite",
  "WebFetch",
  "WebSearch",
  "Write",
] as const;

/** What an agent gets when it has no capabilities.yaml and its worker sets no ALLOWED_TOOLS. */
export const DEFAULT_ALLOWED_TOOLS = ["Bash", "Read", "Write", "Edit", "Glob", "Grep"] as const;

const RULE = /^(?<tool>[A-Za-z][A-Za-z0-9_-]*)(?:\((?<spec>[^()]*(?:\([^()]*\)[^()]*)*)\))?$/;

/** The tool a permission rule is about: `Bash(npm test:*)` → `Bash`, `mcp__swarm__memory_search` → itself. */
export function ruleTool(rule: string): string {
  return RULE.exec(rule)?.groups?.tool ?? rule;
}

function suggestion(name: string): string | undefined {
  const key = name.toLowerCase().replace(/[_\-\s]/g, "");
  return CLAUDE_CODE_TOOLS.find((tool) => tool.toLowerCase() === key);
}

/** A Claude Code tool name or permission rule: `Read`, `Bash(git log:*)`, `mcp__swarm` or `mcp__swarm__memory_search`. */
export const toolRuleSchema = z
  .string()
  .trim()
  .min(1, "empty tool name")
  .max(200, "at most 200 characters")
  .superRefine((rule, ctx) => {
    const match = RULE.exec(rule);
    const tool = match?.groups?.tool;
    if (!match || !tool) {
      ctx.addIssue({ code: "custom", message: `"${rule}" is not a tool name or a rule like Bash(npm test:*)` });
      return;
    }
    if (tool.startsWith("mcp__")) {
      if (match.groups?.spec !== undefined) ctx.addIssue({ code: "custom", message: `MCP tools take no (...) rule: "${rule}"` });
      return;
    }
    if (!(CLAUDE_CODE_TOOLS as readonly string[]).includes(tool)) {
      const near = suggestion(tool);
      ctx.addIssue({
        code: "custom",
        message: near
          ? `unknown tool "${tool}": did you mean ${near}?`
          : `unknown tool "${tool}" (Claude Code tools: ${CLAUDE_CODE_TOOLS.join(", ")}, or mcp__<server>__<tool>)`,
      });
    }
  });

const minutes = z
  .number()
  .int("a whole number")
  .min(1, "at least 1")
  .max(24 * 60, "at most 1440 (a day)");

export const capabilitiesSchema = z.strictObject({
  tools: z
    .strictObject({
      /** Only these tools (or rules) are allowed; Claude Code asks for nothing else, so it cannot use anything else. */
      allow: z
        .array(toolRuleSchema)
        .max(100)
        .default([...DEFAULT_ALLOWED_TOOLS]),
      /** Never allowed, whatever else allows them. */
      deny: z.array(toolRuleSchema).max(100).default([]),
    })
    .default({ allow: [...DEFAULT_ALLOWED_TOOLS], deny: [] }),
  /** `off` denies WebFetch and WebSearch (Bash is the operator's to deny: it reaches the network too), and gives the agent's own tools no network. */
  network: z.enum(["on", "off"]).default("on"),
  /** The agent's own tools (lib/tools/policy.ts): `on` changes apply, `propose` an operator approves each, `off` none. */
  self_extension: z.enum(["on", "propose", "off"]).default("on"),
  limits: z
    .strictObject({
      /** Wall-clock minutes a task may run before the worker stops it and fails the task. */
      max_task_minutes: minutes.default(60),
      /** Claude Code's `--max-turns` for one task. */
      max_turns: z.number().int("a whole number").min(1, "at least 1").max(1000, "at most 1000").default(50),
      /** Characters of agent output the worker keeps and reports for a task. */
      max_output_chars: z
        .number()
        .int("a whole number")
        .min(1000, "at least 1000")
        .max(256 * 1024, "at most 262144")
        .default(200_000),
    })
    .default({ max_task_minutes: 60, max_turns: 50, max_output_chars: 200_000 }),
});
export type Capabilities = z.infer<typeof capabilitiesSchema>;

/** The capabilities of an agent that has no capabilities.yaml. */
export const DEFAULT_CAPABILITIES: Capabilities = capabilitiesSchema.parse({});

export type CapabilitiesIssue = { path: string; message: string; line: number; column: number };
export type CapabilitiesParse = { ok: true; value: Capabilities } | { ok: false; issues: CapabilitiesIssue[] };

/** Parse and check capabilities.yaml; every problem comes back with its line and column (1-based). */
export function parseCapabilities(text: string): CapabilitiesParse {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, column: pos.col };
  };
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((error) => ({ path: "", message: error.message.split("\n")[0] ?? "invalid YAML", ...at(error.pos[0]) })),
    };
  }
  const data = doc.toJS() ?? {};
  if (doc.contents !== null && !isMap(doc.contents)) {
    return { ok: false, issues: [{ path: "", message: "capabilities.yaml must be a mapping (tools:, network:, limits:)", ...at(0) }] };
  }
  const parsed = capabilitiesSchema.safeParse(data);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => {
      // An unknown key is reported on its parent; point at the key itself.
      const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
      const path = [...issue.path, ...keys.slice(0, 1)].map(String);
      let node: unknown;
      for (let depth = path.length; depth >= 0 && !node; depth--) {
        node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
      }
      let offset = (node as { range?: [number, number, number] } | undefined)?.range?.[0];
      if (keys.length > 0) {
        const parent = issue.path.length ? doc.getIn(issue.path.map(String), true) : doc.contents;
        const pair = isMap(parent) ? parent.items.find((item) => String((item.key as { value?: unknown }).value) === keys[0]) : undefined;
        offset = (pair?.key as { range?: [number, number, number] } | undefined)?.range?.[0] ?? offset;
      }
      return { path: path.join("."), message: issue.message, ...at(offset) };
    }),
  };
}

/** One line per issue, e.g. for an API error message: `line 4: tools.allow.1: unknown tool "web_fetch": did you mean WebFetch?` */
export function describeCapabilitiesIssues(issues: CapabilitiesIssue[]): string {
  return issues.map((issue) => `line ${issue.line}: ${issue.path ? `${issue.path}: ` : ""}${issue.message}`).join("\n");
}

/** What a worker's environment adds on top (ALLOWED_TOOLS, DENIED_TOOLS, MAX_TURNS, ...): each may only narrow. */
export type CapabilityNarrowing = {
  allowedTools?: string[];
  deniedTools?: string[];
  maxTaskMinutes?: number;
  maxTurns?: number;
  maxOutputChars?: number;
};

/** What the worker actually enforces for one task. */
export type EffectiveCapabilities = {
  allowedTools: string[];
  deniedTools: string[];
  maxTaskMinutes: number;
  maxTurns: number;
  maxOutputChars: number;
};

const NETWORK_TOOLS = ["WebFetch", "WebSearch"];

/**
 * The intersection of the operator's capabilities and the worker's environment.
 * Allowed: a rule survives when both sides allow it; where one side allows a whole
 * tool and the other only some rules of it (`Bash` vs `Bash(git:*)`), the rules win.
 * Denied: the union. Limits: the smaller number.
 */
export function narrowCapabilities(caps: Capabilities, env: CapabilityNarrowing = {}): EffectiveCapabilities {
  const denied = unique([...caps.tools.deny, ...(env.deniedTools ?? []), ...(caps.network === "off" ? NETWORK_TOOLS : [])]);
  let allowed = caps.tools.allow;
  if (env.allowedTools) {
    const envAllowed = env.allowedTools;
    const wholeIn = (rules: string[], tool: string) => rules.includes(tool);
    allowed = [
      ...caps.tools.allow.filter((rule) => envAllowed.includes(rule) || wholeIn(envAllowed, ruleTool(rule))),
      ...envAllowed.filter((rule) => rule !== ruleTool(rule) && wholeIn(caps.tools.allow, ruleTool(rule))),
    ];
  }
  const deniedWhole = new Set(denied.filter((rule) => rule === ruleTool(rule)));
  return {
    allowedTools: unique(allowed).filter((rule) => !deniedWhole.has(ruleTool(rule))),
    deniedTools: denied,
    maxTaskMinutes: smaller(caps.limits.max_task_minutes, env.maxTaskMinutes),
    maxTurns: smaller(caps.limits.max_turns, env.maxTurns),
    maxOutputChars: smaller(caps.limits.max_output_chars, env.maxOutputChars),
  };
}

function smaller(a: number, b: number | undefined): number {
  return b === undefined || !Number.isFinite(b) || b <= 0 ? a : Math.min(a, b);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** A comma-separated tool list as ALLOWED_TOOLS / DENIED_TOOLS give it (commas inside `(...)` kept). */
export function splitToolList(value: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of value) {
    if (char === "(") depth++;
    if (char === ")") depth = Math.max(0, depth - 1);
    if ((char === "," || char === " ") && depth === 0) {
      if (current.trim()) rules.push(current.trim());
      current = "";
    } else current += char;
  }
  if (current.trim()) rules.push(current.trim());
  return rules;
}

// ---------------------------------------------------------------------------------
// The older capabilities.yaml shape. Agents created before the schema above have a
// capabilities.yaml like `tools.allow: [read, web_fetch]`, `scopes: {filesystem,
// network: allowlist, git}` and `limits: {max_task_minutes, max_tokens_per_task,
// max_concurrent_tasks}`, which was prompt text only. Such a file is read as the
// same cage in the current shape (the worker and the editor both do); nothing it
// said that the worker enforces is widened, and what the worker never enforced is
// dropped with a note.

export type CapabilitiesUpgrade = { text: string; notes: string[] };

const OFF_WORDS = /^(off|none|no|false|deny|denied|disabled|blocked|offline)$/i;
const LIST_KEYS = { allow: ["allow", "allowed", "allowlist", "allow_list"], deny: ["deny", "denied", "denylist", "deny_list", "blocked"] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A tool named the older way (`read`, `web_fetch`, `multi-edit`) as Claude Code names it, or null. */
function upgradeToolName(name: string): string | null {
  if (toolRuleSchema.safeParse(name).success) return name.trim();
  const match = RULE.exec(name.trim());
  const near = match?.groups?.tool ? suggestion(match.groups.tool) : undefined;
  if (!near) return null;
  const spec = match?.groups?.spec;
  const rule = spec === undefined ? near : `${near}(${spec})`;
  return toolRuleSchema.safeParse(rule).success ? rule : null;
}

function upgradeToolList(value: unknown, where: string, notes: string[], dropWhy: string): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) && typeof value !== "string") throw new NotACage(`${where} is not a list`);
  const items = Array.isArray(value) ? value : splitToolList(value);
  const out: string[] = [];
  for (const item of items) {
    const name = typeof item === "string" ? upgradeToolName(item) : null;
    if (name) {
      if (name !== item) notes.push(`${where}: "${item}" read as ${name}`);
      out.push(name);
    } else notes.push(`${where}: dropped ${JSON.stringify(item)} (${dropWhy})`);
  }
  return [...new Set(out)];
}

function upgradeNumber(value: unknown, where: string, min: number, max: number, notes: string[]): number | undefined {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) {
    notes.push(`${where}: dropped ${JSON.stringify(value)} (not a number; the default applies)`);
    return undefined;
  }
  const clamped = Math.min(max, Math.max(min, Math.round(n)));
  if (clamped !== n) notes.push(`${where}: ${n} read as ${clamped} (allowed: ${min} to ${max})`);
  return clamped;
}

/**
 * The current-shape text of an older capabilities.yaml, with a note per change, or
 * null when the text is already valid, is not YAML, or cannot be read as a cage.
 */
export function upgradeCapabilities(text: string): CapabilitiesUpgrade | null {
  try {
    return upgradeOrThrow(text);
  } catch (error) {
    if (error instanceof NotACage) return null;
    throw error;
  }
}

/** A part of the file that cannot be read as any cage: no upgrade, the operator fixes the file. */
class NotACage extends Error {}

function upgradeOrThrow(text: string): CapabilitiesUpgrade | null {
  if (parseCapabilities(text).ok) return null;
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return null;
  const data = doc.toJS() as Record<string, unknown>;
  const notes: string[] = [];
  const out: Record<string, unknown> = {};

  // tools: a mapping with allow/deny (any of their older spellings), or a bare list (the allowed tools).
  const tools = data.tools;
  if (tools !== undefined && tools !== null) {
    const allowDrop = "not a Claude Code tool; the agent does not get it";
    const denyDrop = "not a Claude Code tool, so there is nothing to deny";
    if (Array.isArray(tools) || typeof tools === "string") {
      out.tools = { allow: upgradeToolList(tools, "tools", notes, allowDrop), deny: [] };
      notes.push("tools: a bare list, read as tools.allow");
    } else if (isRecord(tools)) {
      const pick = (keys: string[]) => keys.find((key) => key in tools);
      const allowKey = pick(LIST_KEYS.allow);
      const denyKey = pick(LIST_KEYS.deny);
      out.tools = {
        ...(allowKey ? { allow: upgradeToolList(tools[allowKey], `tools.${allowKey}`, notes, allowDrop) } : {}),
        deny: denyKey ? upgradeToolList(tools[denyKey], `tools.${denyKey}`, notes, denyDrop) : [],
      };
      for (const key of Object.keys(tools)) {
        if (key !== allowKey && key !== denyKey) notes.push(`tools.${key}: dropped (the worker does not enforce it)`);
      }
    } else return null;
  }

  // network: the current key, or the older scopes.network (allowlist, open, none, ...).
  const scopes = isRecord(data.scopes) ? data.scopes : {};
  const network = data.network ?? scopes.network;
  if (network !== undefined && network !== null) {
    const value = network === false || OFF_WORDS.test(String(network).trim()) ? "off" : "on";
    if (network !== value) notes.push(`network: ${JSON.stringify(network)} read as ${value}`);
    out.network = value;
  }
  if (data.scopes !== undefined) {
    const rest = Object.keys(scopes).filter((key) => key !== "network");
    if (rest.length > 0) notes.push(`scopes.${rest.join(", scopes.")}: dropped (the worker does not enforce them)`);
    if (!isRecord(data.scopes)) return null;
  }

  if (data.self_extension !== undefined) {
    const value = String(data.self_extension).trim().toLowerCase();
    if (["on", "propose", "off"].includes(value)) out.self_extension = value;
    else notes.push(`self_extension: dropped ${JSON.stringify(data.self_extension)} (on, propose or off; the default applies)`);
  }

  if (data.limits !== undefined && data.limits !== null) {
    if (!isRecord(data.limits)) return null;
    const limits = data.limits;
    const upgraded: Record<string, number> = {};
    const ranges: Record<string, [number, number]> = {
      max_task_minutes: [1, 24 * 60],
      max_turns: [1, 1000],
      max_output_chars: [1000, 256 * 1024],
    };
    for (const [key, value] of Object.entries(limits)) {
      const range = ranges[key];
      if (range) {
        const n = upgradeNumber(value, `limits.${key}`, range[0], range[1], notes);
        if (n !== undefined) upgraded[key] = n;
      } else if (key === "max_concurrent_tasks") {
        notes.push("limits.max_concurrent_tasks: dropped (set it on the agent itself: Max concurrent tasks)");
      } else notes.push(`limits.${key}: dropped (the worker does not enforce it)`);
    }
    out.limits = upgraded;
  }

  for (const key of Object.keys(data)) {
    if (!["tools", "network", "scopes", "self_extension", "limits"].includes(key))
      notes.push(`${key}: dropped (not part of capabilities.yaml)`);
  }

  const body = stringify(out, { lineWidth: 0 });
  const header = [
    "# capabilities.yaml, upgraded from its older shape (the same cage; what the worker never enforced is dropped):",
    ...notes.map((note) => `#   ${note}`),
  ].join("\n");
  const upgradedText = `${header}\n${body}`;
  return parseCapabilities(upgradedText).ok ? { text: upgradedText, notes } : null;
}

export type CapabilitiesRead =
  | { ok: true; value: Capabilities; upgrade: CapabilitiesUpgrade | null }
  | { ok: false; issues: CapabilitiesIssue[] };

/** What the worker enforces for a stored capabilities.yaml: the file itself, or, in the older shape, its upgrade. */
export function readCapabilities(text: string): CapabilitiesRead {
  const parsed = parseCapabilities(text);
  if (parsed.ok) return { ...parsed, upgrade: null };
  const upgrade = upgradeCapabilities(text);
  if (!upgrade) return parsed;
  const again = parseCapabilities(upgrade.text);
  return again.ok ? { ok: true, value: again.value, upgrade } : parsed;
}
