// The sandbox suite: agent tools that try to get out (spawn processes, write outside
// their folder, read the worker's token and environment, loop forever, allocate
// or write without bound, open network connections or send datagrams where capabilities forbid it) are each
// stopped, with the reason. Real esbuild, real Node processes under the permission model.

import { createSocket } from "node:dgram";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileTool } from "./compile";
import { runInSandbox, type SandboxLimits } from "./sandbox";

const LIMITS: SandboxLimits = { timeoutMs: 15_000, network: false };

/** A tool module around `body` (the execute function's body; `input` is in scope). */
function toolSource(body: string, imports = "", schema = "z.object({}).passthrough()") {
  return `import { z } from "zod";
${imports}
export default {
  name: "probe",
  description: "tries something",
  inputSchema: ${schema},
  async execute(input: any, signal: AbortSignal) {
    ${body}
  },
};`;
}

async function run(source: string, input: unknown = {}, limits: Partial<SandboxLimits> = {}) {
  const compiled = await compileTool(source);
  if (!compiled.ok) throw new Error(compiled.errors);
  return runInSandbox({ compiledCode: compiled.code, input, limits: { ...LIMITS, ...limits } });
}

describe("compiling", { timeout: 30_000 }, () => {
  it("bundles a tool with zod and describes its input as JSON Schema", async () => {
    const result = await run(
      toolSource("return { sum: input.a + input.b };", "", "z.object({ a: z.number(), b: z.number().describe('second') })"),
      { a: 2, b: 3 },
    );
    expect(result).toMatchObject({ ok: true, output: { sum: 5 } });
    if (!result.ok) return;
    expect(result.meta).toMatchObject({ name: "probe", description: "tries something", timeoutMs: null });
    expect(result.meta.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number", description: "second" } },
      required: ["a", "b"],
    });
  });

  it("warns about nothing in a well-formed tool, whichever export holds it", async () => {
    // The agent reads compile warnings as problems with its source: a clean module gets none.
    const asDefault = await compileTool(toolSource("return 1;"));
    const asNamed = await compileTool(toolSource("return 1;").replace("export default {", "export const tool = {"));
    for (const compiled of [asDefault, asNamed]) {
      expect(compiled.ok).toBe(true);
      if (compiled.ok) expect(compiled.warnings).toBe("");
    }
  });

  it("returns esbuild's errors verbatim, with the line", async () => {
    const compiled = await compileTool('export default { name: "x", execute( { return 1 } }');
    expect(compiled.ok).toBe(false);
    if (compiled.ok) return;
    expect(compiled.errors).toContain('Expected "}" but found "1"');
    expect(compiled.errors).toContain("tool.ts:1:");
  });

  it("refuses imports by path (a tool is one module)", async () => {
    const compiled = await compileTool('import secrets from "/etc/passwd"; export default secrets;');
    expect(compiled).toMatchObject({ ok: false, errors: expect.stringContaining("a tool is one module") });
  });

  // The app compiles built-in tool changes from its own root (lib/tools/builtin-changes.ts), where
  // the app's files (data/, with its secrets) are one alias or attribute away.
  for (const [what, source] of [
    ["the app's @/ alias", 'import app from "@/package.json"; export default app;'],
    ["the alias, required", 'export default require("@/package.json");'],
    ["the alias, imported at run time", 'export default await import("@/package.json");'],
    ["a package path that climbs out", 'import app from "zod/../../package.json"; export default app;'],
    ["an import attribute", 'import text from "zod" with { type: "text" }; export default text;'],
  ]) {
    it(`refuses ${what}: nothing of the host's files reaches the stored code`, async () => {
      const compiled = await compileTool(source as string, { resolveDir: process.cwd() });
      expect(compiled.ok).toBe(false);
      if (compiled.ok) return;
      expect(compiled.errors).toMatch(/a tool is one module|not allowed in a tool|not an installed package/);
    });
  }

  it("still bundles installed packages and Node's built-ins, by either name", async () => {
    const result = await run(
      toolSource(
        'return { hash: createHash("sha256").update("x").digest("hex").slice(0, 8), sep: path.sep, zod: pkg.name };',
        'import { createHash } from "node:crypto";\nimport path from "path";\nimport pkg from "zod/package.json";',
      ),
    );
    expect(result).toMatchObject({ ok: true, output: { hash: "2d711642", sep: "/", zod: "zod" } });
  });

  it("says what is wrong with a module that is not a tool", async () => {
    const compiled = await compileTool("export default { name: 1 };");
    if (!compiled.ok) throw new Error(compiled.errors);
    const result = await runInSandbox({ compiledCode: compiled.code, input: {}, limits: LIMITS });
    expect(result).toMatchObject({ ok: false, reason: "invalid_tool", error: expect.stringContaining("name must be a string") });
  });

  it("refuses input that does not match inputSchema, naming the field", async () => {
    const result = await run(toolSource("return 1;", "", "z.object({ count: z.number() })"), { count: "three" });
    expect(result).toMatchObject({ ok: false, reason: "invalid_input", error: expect.stringContaining("count") });
  });

  it("takes an input of megabytes (far more than one command-line argument holds) whole", async () => {
    const text = "0123456789abcdef".repeat(128 * 1024); // 2 MiB of text
    const result = await run(
      toolSource("return { length: input.text.length, last: input.text.slice(-4) };", "", "z.object({ text: z.string() })"),
      { text },
    );
    expect(result).toMatchObject({ ok: true, output: { length: text.length, last: "cdef" } });
  });
});

describe("what the sandbox stops", { timeout: 30_000 }, () => {
  it("starting a process", async () => {
    const result = await run(toolSource('return execSync("id").toString();', 'import { execSync } from "node:child_process";'));
    expect(result).toMatchObject({ ok: false, reason: "denied", error: expect.stringContaining("ChildProcess") });
  });

  it("writing outside its own folder (inside it is fine)", async () => {
    const outside = path.join(mkdtempSync(path.join(tmpdir(), "sandbox-outside-")), "escaped.txt");
    const inside = await run(
      toolSource(
        'writeFileSync("scratch.txt", "ok"); return readFileSync("scratch.txt", "utf8");',
        'import { readFileSync, writeFileSync } from "node:fs";',
      ),
    );
    expect(inside).toMatchObject({ ok: true, output: "ok" });
    const result = await run(
      toolSource(`writeFileSync(${JSON.stringify(outside)}, "x"); return "wrote";`, 'import { writeFileSync } from "node:fs";'),
    );
    expect(result).toMatchObject({ ok: false, reason: "denied", error: expect.stringContaining("FileSystemWrite") });
    expect(existsSync(outside)).toBe(false);
  });

  it("reading the worker's token, its environment and the workspace's secrets", async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), "sandbox-workspace-"));
    writeFileSync(path.join(workspace, ".env"), "API_KEY=hunter2\n");
    process.env.SWARMDECK_TOKEN = "sdw_not_for_tools";
    try {
      const env = await run(toolSource("return { keys: Object.keys(process.env), token: process.env.SWARMDECK_TOKEN ?? null };"));
      expect(env).toMatchObject({ ok: true, output: { keys: [], token: null } });
      const proc = await run(
        toolSource("return readFileSync('/proc/' + process.ppid + '/environ', 'utf8');", 'import { readFileSync } from "node:fs";'),
      );
      expect(proc).toMatchObject({ ok: false, reason: "denied", error: expect.stringContaining("FileSystemRead") });
      const secrets = await run(
        toolSource(
          `return readFileSync(${JSON.stringify(path.join(workspace, ".env"))}, "utf8");`,
          'import { readFileSync } from "node:fs";',
        ),
      );
      expect(secrets).toMatchObject({ ok: false, reason: "denied", error: expect.stringContaining("FileSystemRead") });
      expect(JSON.stringify([env, proc, secrets])).not.toContain("hunter2");
    } finally {
      delete process.env.SWARMDECK_TOKEN;
    }
  });

  it("as another OS user where the worker separates its agent (AGENT_USER): root's files and the worker stay closed", async () => {
    // CI runs as root, like a worker in its image; the tool runs as the agent's uid and still works in its folder.
    const AGENT_UID = 47126;
    const rootOnly = path.join(mkdtempSync(path.join(tmpdir(), "sandbox-root-")), "root-only.txt");
    writeFileSync(rootOnly, "root's secret", { mode: 0o600 });
    const compiled = await compileTool(
      toolSource(
        `writeFileSync("scratch.txt", "mine");
         let secret = "unread";
         try { secret = readFileSync(${JSON.stringify(rootOnly)}, "utf8"); } catch (error) { secret = error.code ?? "refused"; }
         return { uid: process.getuid(), gid: process.getgid(), scratch: readFileSync("scratch.txt", "utf8"), secret };`,
        'import { readFileSync, writeFileSync } from "node:fs";',
      ),
    );
    if (!compiled.ok) throw new Error(compiled.errors);
    const result = await runInSandbox({
      compiledCode: compiled.code,
      input: {},
      limits: LIMITS,
      runAs: { uid: AGENT_UID, gid: AGENT_UID },
    });
    expect(result).toMatchObject({ ok: true, output: { uid: AGENT_UID, gid: AGENT_UID, scratch: "mine" } });
    expect(JSON.stringify(result)).not.toContain("root's secret");
  });

  it("a loop that never ends (CPU time)", async () => {
    const result = await run(toolSource("for (;;) {}"), {}, { cpuMs: 1_500 });
    expect(result).toMatchObject({ ok: false, reason: "cpu", error: expect.stringContaining("CPU limit") });
  });

  it("a promise that never settles (wall time)", async () => {
    const result = await run(toolSource("await new Promise(() => {}); return 1;"), {}, { timeoutMs: 2_000 });
    expect(result).toMatchObject({ ok: false, reason: "timeout", error: expect.stringContaining("time limit") });
  });

  it("unbounded allocation on the heap", async () => {
    const result = await run(
      toolSource("const all: number[][] = []; for (;;) all.push(new Array(100_000).fill(7));"),
      {},
      { memoryMb: 64 },
    );
    expect(result).toMatchObject({ ok: false, reason: "memory" });
  });

  it("unbounded allocation outside the heap (buffers)", async () => {
    const result = await run(
      toolSource(
        "const all: Buffer[] = []; for (;;) { all.push(Buffer.alloc(16 * 1024 * 1024, 1)); await new Promise((r) => setTimeout(r, 5)); }",
      ),
      {},
      { memoryMb: 64 },
    );
    expect(result).toMatchObject({ ok: false, reason: "memory", error: expect.stringContaining("resident") });
  });

  it("unbounded writing into its own folder (the worker's disk), in one file or in many", async () => {
    const oneFile = await run(
      toolSource(
        `const chunk = Buffer.alloc(4 * 1024 * 1024, 1);
        const fd = openSync("fill.bin", "w");
        for (;;) { writeSync(fd, chunk); await new Promise((r) => setTimeout(r, 1)); }`,
        'import { openSync, writeSync } from "node:fs";',
      ),
      {},
      { diskMb: 32 },
    );
    expect(oneFile).toMatchObject({ ok: false, reason: "disk", error: expect.stringContaining("disk limit") });
    const manyFiles = await run(
      toolSource(
        'for (let i = 0; ; i++) { writeFileSync("f" + i, "x"); if (i % 500 === 0) await new Promise((r) => setTimeout(r, 1)); }',
        'import { writeFileSync } from "node:fs";',
      ),
    );
    expect(manyFiles).toMatchObject({ ok: false, reason: "disk" });
  });
});

describe("the network", { timeout: 30_000 }, () => {
  let server: Server;
  let url = "";
  let connections = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end("hello from the network"));
    server.on("connection", () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is closed when capabilities forbid it: fetch, http and raw sockets are refused and nothing connects", async () => {
    const viaFetch = await run(toolSource(`return await (await fetch(${JSON.stringify(url)})).text();`));
    expect(viaFetch).toMatchObject({ ok: false, reason: "denied", error: expect.stringContaining("no network") });
    const viaHttp = await run(
      toolSource(
        `return await new Promise((ok, ko) => get(${JSON.stringify(url)}, ok).on("error", ko));`,
        'import { get } from "node:http";',
      ),
    );
    expect(viaHttp).toMatchObject({ ok: false, reason: "denied" });
    const viaSocket = await run(
      toolSource(
        `const s = new Socket(); s.connect(${JSON.stringify(new URL(url).port)}, "127.0.0.1"); return "connected";`,
        'import { Socket } from "node:net";',
      ),
    );
    expect(viaSocket).toMatchObject({ ok: false, reason: "denied" });
    expect(connections).toBe(0);
  });

  it("is closed to UDP too, also for a socket made without dgram.createSocket and its own address lookup", async () => {
    const receiver = createSocket("udp4");
    const received: string[] = [];
    receiver.on("message", (message) => received.push(message.toString()));
    await new Promise<void>((resolve) => receiver.bind(0, "127.0.0.1", resolve));
    const port = receiver.address().port;
    try {
      const send = (make: string) =>
        run(
          toolSource(
            `const s = ${make};
            await new Promise((ok, ko) => s.send(Buffer.from("leaked"), ${port}, "127.0.0.1", (e) => (e ? ko(e) : ok(null))));
            s.close();
            return "sent";`,
            'import dgram from "node:dgram";',
          ),
        );
      expect(await send('dgram.createSocket("udp4")')).toMatchObject({ ok: false, reason: "denied" });
      const ownLookup = '{ type: "udp4", lookup: (_host, _options, done) => done(null, "127.0.0.1", 4) }';
      expect(await send(`new dgram.Socket(${ownLookup})`)).toMatchObject({ ok: false, reason: "denied" });
      // A datagram would have arrived by now: the receiver is on this machine.
      await new Promise<void>((resolve) => receiver.send("end", port, "127.0.0.1", () => resolve()));
      await new Promise<void>((resolve) => {
        const wait = () => (received.includes("end") ? resolve() : setTimeout(wait, 10));
        wait();
      });
      expect(received).toEqual(["end"]);
    } finally {
      receiver.close();
    }
  });

  it("is open when capabilities allow it", async () => {
    const result = await run(toolSource(`return await (await fetch(${JSON.stringify(url)})).text();`), {}, { network: true });
    expect(result).toMatchObject({ ok: true, output: "hello from the network" });
    expect(connections).toBe(1);
  });
});
