// Compiles an agent's TypeScript tool with esbuild into one self-contained ES module
// (its imports bundled in), so any worker can run the stored code without the
// packages the writing worker happened to have. Compile errors are returned as
// esbuild prints them: the agent reads them verbatim and fixes its source.
import path from "node:path";
import { build, formatMessages, type Message, type Plugin } from "esbuild";

export type CompileResult = { ok: true; code: string; warnings: string } | { ok: false; errors: string };

const SOURCE_NAMESPACE = "swarmdeck-tool";
const SOURCE_FILE = "tool.ts";

/**
 * The entry around the agent's module: its definition (default or named `tool`)
 * and a way to turn its zod inputSchema into the JSON Schema MCP clients need,
 * using the same zod the tool was bundled with.
 */
const ENTRY = `import * as mod from "${SOURCE_NAMESPACE}:${SOURCE_FILE}";
import { toJSONSchema } from "zod";
export const tool = mod.default ?? mod.tool;
export function describeInput(schema) {
  return toJSONSchema(schema, { io: "input", unrepresentable: "any" });
}
`;

/** Packages resolve from the folder that holds node_modules (the worker's or the app's checkout). */
function packageRoot(): string {
  return import.meta.dirname ? path.resolve(import.meta.dirname, "..", "..", "..") : process.cwd();
}

function toolSource(source: string, resolveDir: string): Plugin {
  return {
    name: "swarmdeck-tool-source",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: new RegExp(`^${SOURCE_NAMESPACE}:`) }, () => ({ path: SOURCE_FILE, namespace: SOURCE_NAMESPACE }));
      pluginBuild.onLoad({ filter: /.*/, namespace: SOURCE_NAMESPACE }, () => ({ contents: source, loader: "ts", resolveDir }));
      // A tool is one module: files by path would pull whatever the worker can read into the stored code.
      pluginBuild.onResolve({ filter: /^(\.|\/|[A-Za-z]:)/, namespace: SOURCE_NAMESPACE }, (args) => ({
        errors: [{ text: `Could not resolve "${args.path}": a tool is one module; import packages (e.g. "zod") or node: built-ins only` }],
      }));
    },
  };
}

async function format(messages: Message[], kind: "error" | "warning"): Promise<string> {
  return (await formatMessages(messages, { kind, color: false })).join("").trim();
}

export async function compileTool(source: string, { resolveDir = packageRoot() }: { resolveDir?: string } = {}): Promise<CompileResult> {
  try {
    const result = await build({
      stdin: { contents: ENTRY, resolveDir, sourcefile: "swarmdeck-tool-entry.js", loader: "js" },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      write: false,
      minify: true,
      legalComments: "none",
      logLevel: "silent",
      plugins: [toolSource(source, resolveDir)],
    });
    const code = result.outputFiles[0]?.text ?? "";
    return { ok: true, code, warnings: await format(result.warnings, "warning") };
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    if (Array.isArray(errors) && errors.length) return { ok: false, errors: await format(errors, "error") };
    return { ok: false, errors: (error as Error).message };
  }
}
