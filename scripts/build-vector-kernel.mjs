// Compiles the vector index's scans (lib/memory/vector-kernel.wat, WebAssembly
// text) into lib/generated/vector-kernel.wasm, which lib/memory/vector-index.ts
// loads. Run at install (postinstall), with wabt, the WebAssembly reference
// toolkit's text-format compiler; a few hundred bytes, compiled in milliseconds.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import wabtInit from "wabt";

const ROOT = path.resolve(import.meta.dirname, "..");
export const SOURCE = path.join(ROOT, "lib", "memory", "vector-kernel.wat");
export const OUTPUT = path.join(ROOT, "lib", "generated", "vector-kernel.wasm");

/** The module's bytes, compiled from the text format. */
export async function compileKernel() {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat(path.basename(SOURCE), readFileSync(SOURCE, "utf8"));
  try {
    parsed.validate();
    return Buffer.from(parsed.toBinary({}).buffer);
  } finally {
    parsed.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bytes = await compileKernel();
  mkdirSync(path.dirname(OUTPUT), { recursive: true });
  // Written whole, then renamed: a half-written module never sits at OUTPUT.
  writeFileSync(`${OUTPUT}.tmp`, bytes);
  renameSync(`${OUTPUT}.tmp`, OUTPUT);
  console.log(`vector kernel: ${path.relative(ROOT, OUTPUT)} (${bytes.length} bytes)`);
}
