// Copies Monaco's AMD build into public/monaco so the editor loads from the app
// itself, never from a CDN (the app must work offline).
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";

// monaco-editor's "exports" map hides package.json, so find it on disk.
const root = path.join(process.cwd(), "node_modules", "monaco-editor");
const source = path.join(root, "min", "vs");
const target = path.join(process.cwd(), "public", "monaco", "vs");

if (!existsSync(source)) {
  console.error(`monaco-editor has no min/vs at ${source}`);
  process.exit(1);
}
rmSync(target, { recursive: true, force: true });
mkdirSync(path.dirname(target), { recursive: true });
cpSync(source, target, { recursive: true });
console.log(`Monaco copied to ${path.relative(process.cwd(), target)}`);
