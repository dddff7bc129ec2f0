// Compiles an agent's TypeScript tool with esbuild into one self-contained ES module
// (its imports bundled in), so any worker can run the stored code without the
// packages the writing worker happened to have. Compile errors are returned as
// esbuild prints them: the agent reads them verbatim and fixes its source.
import { isBuiltin } from "node:module";
import path from "node:path";
import { build, formatMessages, type Message, type Plugin } from "esbuild";

export type CompileResult = { ok: true; code: string; warnings: string } | { ok: false; errors: string };

const SOURCE_NAMESPACE = "swarmdeck-tool";
const SOURCE_FILE = "tool.ts";

/**
 * The entry around the agent's module: its definition (default or named `tool`)
 * and a way to turn its zod inputSchema into the JSON Schema MCP clients need,
 * using the same zod the tool was bundled with. Both exports are read from a copy of the
 * namespace: a module has one of the two, and esbuild would warn about the other ("will
 * always be undefined") on every clean tool, which the agent would read as a problem.
 */
const ENTRY = `import * as mod from "${SOURCE_NAMESPACE}:${SOURCE_FILE}";
import { toJSONSchema } from "zod";
const exported = { ...mod };
export const tool = exported.default ?? exported.tool;
export function describeInput(schema) {
  return toJSONSchema(schema, { io: "input", unrepresentable: "any" });
}
`;

/** Packages resolve from the folder that holds node_modules (the worker's or the app's checkout). */
function packageRoot(): string {
  return import.meta.dirname ? path.resolve(import.meta.dirname, "..", "..", "..") : process.cwd();
}

/**
 * A package name (`zod`, `@scope/name`), optionally with a subpath made of plain
 * names: no `.` or `..` segment, no empty scope (`@/…` is the app's own path alias).
 */
const PACKAGE_SPECIFIER = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*(?:\/(?!\.{1,2}(?:\/|$))[\w.@~-]+)*$/i;

function toolSource(source: string, resolveDir: string): Plugin {
  return {
    name: "swarmdeck-tool-source",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: new RegExp(`^${SOURCE_NAMESPACE}:`) }, () => ({ path: SOURCE_FILE, namespace: SOURCE_NAMESPACE }));
      pluginBuild.onLoad({ filter: /.*/, namespace: SOURCE_NAMESPACE }, () => ({ contents: source, loader: "ts", resolveDir }));
      // Every import of the agent's module (the packages' own imports are the packages' business)
      // may name node: built-ins and packages installed in node_modules, nothing else. esbuild runs
      // in the app (or the worker) with all of its rights, and whatever it resolves is bundled into
      // the stored code: a file by path, the app's `@/…` alias or an import attribute
      // (`with { type: "text" }`) would copy the app's files (its data folder, its secrets) into the tool.
      pluginBuild.onResolve({ filter: /.*/, namespace: SOURCE_NAMESPACE }, async (args) => {
        const refuse = (why: string) => ({ errors: [{ text: `Could not resolve "${args.path}": ${why}` }] });
        if (Object.keys(args.with).length > 0) return refuse("import attributes (with { … }) are not allowed in a tool");
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (!PACKAGE_SPECIFIER.test(args.path)) return refuse('a tool is one module; import packages (e.g. "zod") or node: built-ins only');
        const resolved = await pluginBuild.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external) return resolved;
        // A package lives in node_modules; anything else (a symlink out, say) is a file of the host.
        if (!resolved.path.split(path.sep).includes("node_modules")) return refuse("it is not an installed package");
        return { path: resolved.path, namespace: resolved.namespace, sideEffects: resolved.sideEffects };
      });
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
      // No tsconfig.json of the host: its `paths` (the app's "@/*") would resolve the tool's imports into the app.
      tsconfigRaw: {},
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
