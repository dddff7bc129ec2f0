// The worker's settings, read once from the environment and checked with zod, so
// a typo stops the worker at start-up with a clear message instead of mid-task.
import { z } from "zod";

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

const envSchema = z
  .object({
    SWARMDECK_URL: z.url({ message: "SWARMDECK_URL must be the app's URL, e.g. http://localhost:3000" }),
    SWARMDECK_TOKEN: z.string().regex(/^sdw_\S+$/, "SWARMDECK_TOKEN must be a worker token (sdw_...)"),
    WORKSPACE_DIR: z.string().min(1, "WORKSPACE_DIR is required"),
    AGENT_COMMAND: z.string().optional(),
    HARNESS: z.enum(["command", "claude"]).optional(),
    CLAUDE_BIN: z.string().default("claude"),
    MAX_TURNS: int(50),
    ALLOWED_TOOLS: z.string().default("Bash,Read,Write,Edit,Glob,Grep"),
    STARTUP_SCRIPT_STRICT: boolish,
    VERIFY_RETRIES: int(2),
    GIT_MAIN_BRANCH: z.string().default("main"),
    GIT_REMOTE: z.string().default("origin"),
    IDLE_PROPOSAL_AFTER: int(0),
    REFLECTION: boolish,
    REFLECTION_TIMEOUT_MS: int(120_000),
    REFLECTION_COMMAND: z.string().optional(),
    POLL_WAIT_MS: int(25_000),
    HEARTBEAT_INTERVAL_MS: int(10_000),
    SYNC_DEBOUNCE_MS: int(300),
    KILL_GRACE_MS: int(5_000),
    MAX_OUTPUT_CHARS: int(200_000),
  })
  .superRefine((env, ctx) => {
    if (env.HARNESS !== "claude" && !env.AGENT_COMMAND?.trim()) {
      ctx.addIssue({ code: "custom", path: ["AGENT_COMMAND"], message: "set AGENT_COMMAND (any command) or HARNESS=claude" });
    }
  });

export type WorkerConfig = {
  baseUrl: string;
  token: string;
  workspaceDir: string;
  harness: "command" | "claude";
  agentCommand: string;
  claudeBin: string;
  maxTurns: number;
  allowedTools: string;
  startupStrict: boolean;
  verifyRetries: number;
  mainBranch: string;
  remote: string;
  idleProposalAfterMs: number;
  /** Post-task reflection (P5): on unless REFLECTION=off. */
  reflection: boolean;
  reflectionTimeoutMs: number;
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

export function loadConfig(env: NodeJS.ProcessEnv, argv: string[] = []): WorkerConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".") || "env"}: ${issue.message}`);
    throw new ConfigError(`invalid worker configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const unknown = argv.filter((arg) => arg !== "--once");
  if (unknown.length > 0) throw new ConfigError(`unknown argument(s): ${unknown.join(" ")} (usage: worker [--once])`);
  return {
    baseUrl: e.SWARMDECK_URL.replace(/\/+$/, ""),
    token: e.SWARMDECK_TOKEN,
    workspaceDir: e.WORKSPACE_DIR,
    harness: e.HARNESS ?? (e.AGENT_COMMAND?.trim() ? "command" : "claude"),
    agentCommand: e.AGENT_COMMAND?.trim() ?? "",
    claudeBin: e.CLAUDE_BIN,
    maxTurns: e.MAX_TURNS,
    allowedTools: e.ALLOWED_TOOLS,
    startupStrict: e.STARTUP_SCRIPT_STRICT ?? true,
    verifyRetries: e.VERIFY_RETRIES,
    mainBranch: e.GIT_MAIN_BRANCH,
    remote: e.GIT_REMOTE,
    idleProposalAfterMs: e.IDLE_PROPOSAL_AFTER,
    reflection: e.REFLECTION ?? true,
    reflectionTimeoutMs: Math.max(e.REFLECTION_TIMEOUT_MS, 1_000),
    reflectionCommand: e.REFLECTION_COMMAND?.trim() ?? "",
    pollWaitMs: Math.min(e.POLL_WAIT_MS, 30_000),
    heartbeatIntervalMs: Math.max(e.HEARTBEAT_INTERVAL_MS, 100),
    syncDebounceMs: e.SYNC_DEBOUNCE_MS,
    killGraceMs: e.KILL_GRACE_MS,
    maxOutputChars: Math.min(e.MAX_OUTPUT_CHARS, 256 * 1024),
    once: argv.includes("--once"),
  };
}
