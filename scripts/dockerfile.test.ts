// The Docker image installs with only some files copied in (to cache the install
// layer): every file `npm install`'s postinstall runs or reads must be among them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SOURCE } from "./build-vector-kernel.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");

describe("Dockerfile", () => {
  it("copies every file postinstall needs before it runs npm install", () => {
    const dockerfile = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    const beforeInstall = dockerfile.slice(0, dockerfile.indexOf("RUN npm install"));
    expect(beforeInstall.length).toBeGreaterThan(0);
    const copied = [...beforeInstall.matchAll(/^COPY (.+) \S+$/gm)].flatMap((match) => match[1]!.split(/\s+/));
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    const needed = [...scripts.postinstall!.matchAll(/node (scripts\/\S+\.mjs)/g)].map((match) => match[1]!);
    // The vector kernel's script compiles its WebAssembly source.
    needed.push(path.relative(ROOT, SOURCE));
    // prisma generate loads prisma.config.ts, and with it the modules it imports.
    const config = readFileSync(path.join(ROOT, "prisma.config.ts"), "utf8");
    needed.push("prisma.config.ts", ...[...config.matchAll(/from "\.\/(.+)"/g)].map((match) => `${match[1]}.ts`));
    expect(needed.length).toBeGreaterThanOrEqual(6);
    for (const file of needed) expect(copied, `${file} is not copied before npm install`).toContain(file);
  });
});
