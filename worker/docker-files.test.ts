// biome-ignore-all lint/suspicious/noExplicitAny: parsed YAML
// Docker cannot run on this machine: these checks are what can be verified here
// (shell syntax, the compose file's shape, what the image installs).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

describe("worker container files", () => {
  it("has shell scripts that bash accepts (bash -n)", () => {
    const scripts = [
      "worker/entrypoint.sh",
      ...readdirSync(path.join(ROOT, "tests/fixtures/agents")).map((f) => `tests/fixtures/agents/${f}`),
    ];
    for (const script of scripts)
      expect(() => execFileSync("bash", ["-n", path.join(ROOT, script)], { stdio: "pipe" }), script).not.toThrow();
  });

  it("has an entrypoint that checks credentials, clones, sets the git identity and execs the worker", () => {
    const entry = read("worker/entrypoint.sh");
    expect(entry).toContain("SWARMDECK_TOKEN is not set");
    expect(entry).toContain("no Claude credentials");
    expect(entry).toMatch(/git clone --quiet "\$SOURCE" "\$WORKSPACE_DIR"/);
    expect(entry).toMatch(/git config --global user\.name "\$AGENT_NAME"/);
    expect(entry).toMatch(/^exec node --import tsx \/app\/worker\/main\.ts "\$@"$/m);
  });

  it("builds from node LTS slim with git, jq, curl, python3 and the Claude Code CLI", () => {
    const dockerfile = read("worker/Dockerfile");
    expect(dockerfile).toMatch(/^FROM node:lts-slim$/m);
    for (const pkg of ["git", "jq", "curl", "python3"]) expect(dockerfile).toMatch(new RegExp(`apt-get install[^\\n]*\\b${pkg}\\b`));
    expect(dockerfile).toContain("npm install -g @anthropic-ai/claude-code");
    expect(dockerfile).toContain('ENTRYPOINT ["/app/worker/entrypoint.sh"]');
  });

  it("composes the app and two workers that wait for it", () => {
    const compose = parse(read("docker-compose.yml"), { merge: true }) as { services: Record<string, any> };
    expect(Object.keys(compose.services).sort()).toEqual(["app", "worker-1", "worker-2"]);
    for (const name of ["worker-1", "worker-2"]) {
      const worker = compose.services[name];
      expect(worker.build.dockerfile).toBe("worker/Dockerfile");
      expect(worker.depends_on.app.condition).toBe("service_healthy");
      expect(worker.environment.SWARMDECK_URL).toBe("http://app:3000");
    }
    expect(compose.services["worker-1"].environment.SWARMDECK_TOKEN).not.toBe(compose.services["worker-2"].environment.SWARMDECK_TOKEN);
  });
});
