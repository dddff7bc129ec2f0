// The built-in tools' sources, in a git repository the app owns
// (<SWARMDECK_DATA_DIR>/builtin-tools), so that every change an agent makes to a
// built-in is real git history an operator can inspect: `main` holds them as
// shipped, `agents/<agent id>` each agent's own versions (lib/tools/staging.ts).
// A built-in's module has the tool shape; its execute(input) returns the arguments
// the built-in is then called with, so a change can reword the description, reshape
// the input and fill in arguments, but never reach anything the built-in cannot.
import "server-only";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { gitOrThrow } from "../../worker/git";
import { BUILTIN_TOOLS } from "../../worker/mcp/builtin-tools";

export function builtinRepoDir(): string {
  return path.resolve(process.env.SWARMDECK_DATA_DIR ?? "data", "builtin-tools");
}

export function builtinFilePath(name: string): string {
  return `tools/${name}.ts`;
}

/** The module of a built-in as shipped. */
export function shippedSource(name: string): string | null {
  const tool = BUILTIN_TOOLS.find((t) => t.name === name);
  if (!tool) return null;
  const schema = JSON.stringify(z.toJSONSchema(tool.schema, { io: "input" }), null, 2).replace(/\n/g, "\n  ");
  return `// ${tool.name}: a built-in tool of \`swarm mcp\`. execute() returns the arguments
// ${tool.name} is called with: change the description, the input or those arguments.
import { z } from "zod";

export default {
  name: ${JSON.stringify(tool.name)},
  description: ${JSON.stringify(tool.description)},
  inputSchema: z.fromJSONSchema(${schema}),
  async execute(input: Record<string, unknown>) {
    return input;
  },
};
`;
}

/** Repositories being created in this process: two first changes at once create one, and neither stages on it half-made. */
const creating = new Map<string, Promise<void>>();

/**
 * Creates the repository with every built-in as shipped (once). An interrupted staging
 * is repaired by stageChange itself, under its lock (lib/tools/staging.ts): repaired
 * here, outside it, it undid another agent's change in the middle of its staging.
 */
export async function ensureBuiltinRepo(): Promise<string> {
  const dir = builtinRepoDir();
  let made = creating.get(dir);
  if (!made) {
    if (existsSync(path.join(dir, ".git"))) return dir;
    made = createBuiltinRepo(dir).finally(() => creating.delete(dir));
    creating.set(dir, made);
  }
  await made;
  return dir;
}

async function createBuiltinRepo(dir: string): Promise<void> {
  await mkdir(path.join(dir, "tools"), { recursive: true });
  await gitOrThrow(dir, ["init", "-q", "-b", "main"]);
  await gitOrThrow(dir, ["config", "user.name", "Swarmdeck"]);
  await gitOrThrow(dir, ["config", "user.email", "swarmdeck@localhost"]);
  for (const tool of BUILTIN_TOOLS) await writeFile(path.join(dir, builtinFilePath(tool.name)), shippedSource(tool.name) ?? "");
  await gitOrThrow(dir, ["add", "."]);
  await gitOrThrow(dir, ["commit", "-q", "-m", "Built-in tools as shipped"]);
}
