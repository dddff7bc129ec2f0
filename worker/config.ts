// The worker's settings, read once from the environment and checked with zod, so
// a typo stops the worker at start-up with a clear message instead of mid-task.
import path from "node:path";
import { z } from "zod";
import { type CapabilityNarrowing, splitToolList, toolRuleSchema } from "../lib/contracts/capabilities";
import { type AgentUser, AgentUserError, resolveAgentUser } from "./agent-user";

const boolish = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === "" ? undefined : !/^(0|false|no|off)$/i.test(value.trim())));

const int = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined || value === "" ? fallback : Number(value)))
    .pipe(z.number().int().min(0));

/** Minutes, fractions allowed (0.5 = 30 s). */
const minutes = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined || value === "" ? fallback : Number(value)))
    .pipe(
      z
        .number()
        .min(0)
        .max(7 * 24 * 60),
    );

const envSchema = z
  .object({
    SWARMDECK_URL: z.url({ message: "SWARMDECK_URL must be the app's URL, e.g. http://localhost:3000" }),
    SWARMDECK_TOKEN: z.string().regex(/^sdw_\S+$/, "SWARMDECK_TOKEN must be a worker token (sdw_...)"),
    // git reads GIT_CEILING_DIRECTORIES (worker/git.ts) as a ':'-separated list: a ':' in the path
    // would void the ceiling that keeps git from a repository above a checkout whose .git went.
    WORKSPACE_DIR: z
      .string()
      .min(1, "WORKSPACE_DIR is required")
      .refine((dir) => !path.resolve(dir).includes(":"), {
        message:
          "WORKSPACE_DIR must not contain ':' (git reads the folders it may not search above as a ':'-separated list, so the worker could not keep git out of a repository enclosing the checkout)",
      }),
    REPO_URL: z.string().optional(),
    AGENT_COMMAND: z.string().optional(),
    HARNESS: z.enum(["command", "claude"]).optional(),
    CLAUDE_BIN: z.string().default("claude"),
    // These narrow the agent's capabilities.yaml (worker/capabilities.ts); unset, they narrow nothing.
    MAX_TURNS: z.string().optional(),
    ALLOWED_TOOLS: z.string().optional(),
    DENIED_TOOLS: z.string().optional(),
    // Runs the agent's processes as this user (worker/agent-user.ts); needs a root worker.
    AGENT_USER: z.string().optional(),
    // A root worker refuses to run the agent as root too unless this says so (unsafe: the agent can read the token).
    ALLOW_AGENT_AS_ROOT: boolish,
    STARTUP_SCRIPT_STRICT: boolish,
    SETUP_RECHECK_MS: int(15_000),
    VERIFY_RETRIES: int(2),
    MAX_TASK_MINUTES: minutes(60),
    NO_PROGRESS_MINUTES: minutes(15),
    // Both reach git's command line: a name, never an option.
    GIT_MAIN_BRANCH: z
      .string()
      .regex(/^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]+$/, "GIT_MAIN_BRANCH must be a branch name (letters, digits, . _ / -, not starting with -)")
      .default("main"),
    GIT_REMOTE: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "GIT_REMOTE must be a remote's name (letters, digits, . _ -, starting with a letter or digit)")
      .default("origin"),
    IDLE_PROPOSAL_AFTER: int(0),
    CRASH_PAUSE_AFTER: int(3),
    CRASH_QUICK_MS: int(10_000),
    CRASH_PAUSE_MS: int(60_000),
    REFLECTION: boolish,
    REFLECTION_TIMEOUT_MS: int(120_000),
    REFLECTION_COMMAND: z.string().optional(),
    POLL_WAIT_MS: int(25_000),
    HEARTBEAT_INTERVAL_MS: int(10_000),
    SYNC_DEBOUNCE_MS: int(300),
    KILL_GRACE_MS: int(5_000),
    // How long a finished task's report is retried while the app is down or overloaded.
    REPORT_RETRY_MS: int(300_000),
    MAX_OUTPUT_CHARS: int(200_000),
  })
  .superRefine((env, ctx) => {
    for (const key of ["ALLOWED_TOOLS", "DENIED_TOOLS"] as const) {
      for (const rule of splitToolList(env[key] ?? "")) {
        const checked = toolRuleSchema.safeParse(rule);
        if (!checked.success) ctx.addIssue({ code: "custom", path: [key], message: checked.error.issues[0]?.message ?? "not a tool" });
      }
    }
    if (env.MAX_TURNS?.trim() && !/^[1-9]\d*$/.test(env.MAX_TURNS.trim())) {
      ctx.addIssue({ code: "custom", path: ["MAX_TURNS"], message: "MAX_TURNS must be a whole number of at least 1" });
    }
    if (env.HARNESS !== "claude" && !env.AGENT_COMMAND?.trim()) {
      ctx.addIssue({ code: "custom", path: ["AGENT_COMMAND"], message: "set AGENT_COMMAND (any command) or HARNESS=claude" });
    }
  });

export type WorkerConfig = {
  baseUrl: string;
  token: string;
  /** Holds project/ (the checkout) and home/ (SWARMDECK_HOME): worker/workspace-layout.ts. */
  workspaceDir: string;
  /** Cloned into WORKSPACE_DIR/project at start when that is not a checkout yet (empty: no repository). */
  repoUrl: string;
  harness: "command" | "claude";
  agentCommand: string;
  claudeBin: string;
  /** AGENT_USER resolved: the OS user the agent's processes run as (null: the worker's own). */
  agentUser: AgentUser | null;
  /** What this worker's environment narrows capabilities.yaml to (never widens). */
  capabilityNarrowing: CapabilityNarrowing;
  startupStrict: boolean;
  /** While a strict setup failure blocks claiming: how often the worker checks whether the script changed. */
  setupRecheckMs: number;
  verifyRetries: number;
  /** The time limit of a task without one of its own and without capabilities.yaml. */
  maxTaskMinutes: number;
  /** The agent is stopped after this long without output, tool use or file change (0: off). */
  noProgressMinutes: number;
  mainBranch: string;
  remote: string;
  idleProposalAfterMs: number;
  /** A failing agent: quick failures in a row before claiming pauses (0: never), what counts as quick, the first pause (worker/crash-guard.ts). */
  crash: { after: number; quickMs: number; pauseMs: number };
  /** Post-task reflection (P5): on unless REFLECTION=off. */
  reflection: boolean;
  reflectionTimeoutMs: number;
  reportRetryMs: number;
  /** The follow-up turn for AGENT_COMMAND agents (empty: none, so no reflection unless HARNESS=claude). */
  reflectionCommand: string;
  pollWaitMs: number;
  heartbeatIntervalMs: number;
  syncDebounceMs: number;
  killGraceMs: number;
  maxOutputChars: number;
  once: boolean;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv, argv: string[] = [], uid = process.getuid?.() ?? -1): WorkerConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".") || "env"}: ${issue.message}`);
    throw new ConfigError(`invalid worker configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  let agentUser: AgentUser | null;
  try {
    agentUser = resolveAgentUser(e.AGENT_USER, uid);
  } catch (error) {
    if (error instanceof AgentUserError) throw new ConfigError(`invalid worker configuration:\n  AGENT_USER: ${error.message}`);
    throw error;
  }
  if (uid === 0 && !agentUser && !e.ALLOW_AGENT_AS_ROOT) {
    throw new ConfigError(
      "invalid worker configuration:\n  AGENT_USER: the worker runs as root and AGENT_USER is not set, so the agent would run as root too " +
        "and could read this worker's token from /proc/<worker pid>/environ. Set AGENT_USER to an unprivileged user " +
        "(a user name or uid[:gid]; the worker image sets AGENT_USER=agent), or set ALLOW_AGENT_AS_ROOT=1 to run the agent as root anyway (unsafe).",
    );
  }
  const unknown = argv.filter((arg) => arg !== "--once");
  if (unknown.length > 0) throw new ConfigError(`unknown argument(s): ${unknown.join(" ")} (usage: worker [--once])`);
  return {
    baseUrl: e.SWARMDECK_URL.replace(/\/+$/, ""),
    token: e.SWARMDECK_TOKEN,
    workspaceDir: e.WORKSPACE_DIR,
    repoUrl: e.REPO_URL?.trim() ?? "",
    harness: e.HARNESS ?? (e.AGENT_COMMAND?.trim() ? "command" : "claude"),
    agentCommand: e.AGENT_COMMAND?.trim() ?? "",
    claudeBin: e.CLAUDE_BIN,
    agentUser,
    capabilityNarrowing: {
      ...(e.ALLOWED_TOOLS?.trim() ? { allowedTools: splitToolList(e.ALLOWED_TOOLS) } : {}),
      ...(e.DENIED_TOOLS?.trim() ? { deniedTools: splitToolList(e.DENIED_TOOLS) } : {}),
      ...(e.MAX_TURNS?.trim() ? { maxTurns: Number(e.MAX_TURNS) } : {}),
      maxOutputChars: Math.min(e.MAX_OUTPUT_CHARS, 256 * 1024),
    },
    startupStrict: e.STARTUP_SCRIPT_STRICT ?? true,
    setupRecheckMs: Math.max(e.SETUP_RECHECK_MS, 100),
    verifyRetries: e.VERIFY_RETRIES,
    maxTaskMinutes: e.MAX_TASK_MINUTES > 0 ? e.MAX_TASK_MINUTES : 60,
    noProgressMinutes: e.NO_PROGRESS_MINUTES,
    mainBranch: e.GIT_MAIN_BRANCH,
    remote: e.GIT_REMOTE,
    idleProposalAfterMs: e.IDLE_PROPOSAL_AFTER,
    crash: { after: e.CRASH_PAUSE_AFTER, quickMs: e.CRASH_QUICK_MS, pauseMs: Math.max(e.CRASH_PAUSE_MS, 100) },
    reflection: e.REFLECTION ?? true,
    reflectionTimeoutMs: Math.max(e.REFLECTION_TIMEOUT_MS, 1_000),
    reflectionCommand: e.REFLECTION_COMMAND?.trim() ?? "",
    pollWaitMs: Math.min(e.POLL_WAIT_MS, 30_000),
    heartbeatIntervalMs: Math.max(e.HEARTBEAT_INTERVAL_MS, 100),
    syncDebounceMs: e.SYNC_DEBOUNCE_MS,
    killGraceMs: e.KILL_GRACE_MS,
    reportRetryMs: e.REPORT_RETRY_MS,
    maxOutputChars: Math.min(e.MAX_OUTPUT_CHARS, 256 * 1024),
    once: argv.includes("--once"),
  };
}
