// `npm run bench:tools`: what an agent waits for when it writes and calls its own
// tools, without the network: esbuild compile time, and the sandbox's start-up (a
// trivial tool run from spawn to answer). Prints figures; asserts nothing.
import { compileTool } from "../lib/tools/sandbox/compile";
import { runInSandbox } from "../lib/tools/sandbox/sandbox";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const SOURCE = `import { z } from "zod";
export default { name: "echo", description: "echo", inputSchema: z.object({ text: z.string() }),
  async execute({ text }: { text: string }) { return { text }; } };`;

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
  return `median ${at(0.5)} ms, p90 ${at(0.9)} ms, min ${sorted[0]!.toFixed(0)} ms (n=${samples.length})`;
}

const compiles: number[] = [];
let code = "";
for (let i = 0; i < ROUNDS; i++) {
  const started = performance.now();
  const result = await compileTool(SOURCE);
  compiles.push(performance.now() - started);
  if (!result.ok) throw new Error(result.errors);
  code = result.code;
}
const runs: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const result = await runInSandbox({ compiledCode: code, input: { text: "hi" }, limits: { timeoutMs: 10_000, network: false } });
  if (!result.ok) throw new Error(result.error);
  runs.push(result.durationMs);
}
console.log(`compile (esbuild, zod bundled, ${(code.length / 1024).toFixed(0)} KiB out): ${stats(compiles)}`);
console.log(`sandbox start-up + trivial call (spawn to answer): ${stats(runs)}`);
