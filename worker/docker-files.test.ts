// biome-ignore-all lint/suspicious/noExplicitAny: parsed YAML
// Docker cannot run on this machine: these checks are what can be verified here
// (shell syntax, the compose file's shape, that every path and variable it names
// exists, what the images install and run as). The compose file was also validated
// against the compose-spec JSON schema once (README.md, "Docker").
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
const compose = () => parse(read("docker-compose.yml"), { merge: true }) as { services: Record<string, any>; volumes: Record<string, any> };

describe("container files", () => {
  it("has shell scripts that bash accepts (bash -n)", () => {
    const scripts = [
      "worker/entrypoint.sh",
      // The scripted agents written for a shell (others, such as *.mjs, are not shell).
      ...readdirSync(path.join(ROOT, "tests/fixtures/agents"))
        .map((f) => `tests/fixtures/agents/${f}`)
        .filter((f) => f.endsWith(".sh") || /^#!.*\b(ba)?sh\b/.test(read(f).split("\n", 1)[0] ?? "")),
    ];
    for (const script of scripts)
      expect(() => execFileSync("bash", ["-n", path.join(ROOT, script)], { stdio: "pipe" }), script).not.toThrow();
  });

  it("has a worker entrypoint that seeds a writable Claude config from read-only credentials and execs the worker", () => {
    const entry = read("worker/entrypoint.sh");
    expect(entry).toContain("SWARMDECK_TOKEN is not set");
    expect(entry).toContain('cp "$CLAUDE_CREDENTIALS_DIR/$file" "$CLAUDE_CONFIG_DIR/$file"');
    expect(entry).toContain("is not writable: give each worker its own volume there");
    // The worker clones into $WORKSPACE_DIR/project itself (worker/workspace-layout.ts); the entrypoint only names the source.
    expect(entry).not.toContain("git clone");
    // Nor does it register: the worker does, once a start (registrations are audited and counted per agent and hour).
    expect(entry).not.toContain("/api/worker/register");
    expect(entry).toMatch(/REPO_URL="\$REPO_PATH"/);
    expect(entry).toMatch(/^exec node --import tsx "\$\(dirname "\$\(readlink -f "\$0"\)"\)\/main\.ts" "\$@"$/m);
  });

  it("builds the worker from node LTS slim with git, jq, curl, python3, the Claude Code CLI and the worker's modules, under an init", () => {
    const dockerfile = read("worker/Dockerfile");
    expect(dockerfile).toMatch(/^FROM node:lts-slim$/m);
    for (const pkg of ["git", "jq", "curl", "python3"]) expect(dockerfile).toMatch(new RegExp(`apt-get install[^\\n]*\\b${pkg}\\b`));
    expect(dockerfile).toContain("npm install -g @anthropic-ai/claude-code");
    // Everything the worker imports outside node's own modules (capabilities.yaml needs yaml).
    for (const dep of ["zod", "tsx", "yaml"]) expect(dockerfile).toMatch(new RegExp(`npm install [^\\n]*\\b${dep}@`));
    // An init as PID 1 (Debian's tini), which reaps the orphans the agent's processes leave (node reaps only its own children).
    expect(dockerfile).toMatch(/apt-get install[^\n]*\btini\b/);
    expect(dockerfile).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "/app/worker/entrypoint.sh"]');
  });

  it("runs the agent as its own unprivileged user by default, the worker as root to keep it apart", () => {
    const dockerfile = read("worker/Dockerfile");
    // A user of its own (not root, not the image's node user), named in the image's environment.
    expect(dockerfile).toMatch(/useradd [^\n]*\bagent\b/);
    expect(dockerfile).toMatch(/^\s+AGENT_USER=agent \\$/m);
    expect(dockerfile).toMatch(/CLAUDE_CONFIG_DIR=\/home\/agent\/\.claude/);
    // No USER line: the worker itself is root, so it can start the agent as `agent`.
    expect(dockerfile).not.toMatch(/^USER /m);
    expect(dockerfile).not.toMatch(/ALLOW_AGENT_AS_ROOT/);
    const { services } = compose();
    for (const name of ["worker-1", "worker-2"]) {
      expect(services[name].environment.AGENT_USER).toBe("agent");
      expect(services[name].environment.ALLOW_AGENT_AS_ROOT).toBeUndefined();
      expect(services[name].user).toBeUndefined();
    }
  });

  it("builds the app with its native module, runs npm start as a non-root user on a data volume, with a health check", () => {
    const dockerfile = read("Dockerfile");
    expect(dockerfile).toMatch(/apt-get install[^\n]*python3 make g\+\+/);
    expect(dockerfile).toContain("npm install --no-audit --no-fund");
    expect(dockerfile).not.toMatch(/^RUN .*npm ci\b/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^VOLUME \["\/app\/data"\]$/m);
    expect(dockerfile).toMatch(/SWARMDECK_DATA_DIR=\/app\/data/);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\/api\/health/m);
    expect(dockerfile).toMatch(/^CMD \["npm", "start"\]$/m);
    // What the build copies exists, and .dockerignore keeps local state out of the image.
    for (const file of ["package.json", "package-lock.json", "prisma", "prisma.config.ts", "scripts/copy-monaco.mjs", "scripts/launch.ts"])
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
    const ignore = read(".dockerignore").split("\n");
    for (const entry of ["node_modules", ".next", "data", ".git"]) expect(ignore).toContain(entry);
  });

  it("composes the app and two workers, each with its own writable Claude config and workspace, and health checks", () => {
    const { services, volumes } = compose();
    const profiled = (name: string) => (services[name].profiles ?? []).length > 0;
    expect(
      Object.keys(services)
        .filter((name) => !profiled(name))
        .sort(),
    ).toEqual(["app", "worker-1", "worker-2"]);
    expect(services.app.build.dockerfile).toBe("Dockerfile");
    expect(services.app.volumes).toContain("app-data:/app/data");
    expect(services.app.healthcheck.test.join(" ")).toContain("/api/health");
    const mounts = (name: string) => services[name].volumes as string[];
    for (const name of ["worker-1", "worker-2"]) {
      const worker = services[name];
      expect(worker.build.dockerfile).toBe("worker/Dockerfile");
      expect(worker.depends_on.app.condition).toBe("service_healthy");
      // The app by default; the proxy in front of the PostgreSQL instances when SWARMDECK_WORKER_URL says so.
      expect(worker.environment.SWARMDECK_URL).toBe("${SWARMDECK_WORKER_URL:-http://app:3000}");
      expect(worker.environment.CLAUDE_CONFIG_DIR).toBe("/home/agent/.claude");
      expect(worker.healthcheck.test.join(" ")).toContain("worker.alive");
      // Credentials read-only; the config Claude writes to is a volume of this worker's own.
      expect(mounts(name).find((m) => m.endsWith(":/claude-credentials:ro"))).toBeTruthy();
      expect(mounts(name)).toContain(`${name}-claude:/home/agent/.claude`);
      expect(mounts(name)).toContain(`${name}-workspace:/workspace`);
    }
    expect(services["worker-1"].environment.SWARMDECK_TOKEN).not.toBe(services["worker-2"].environment.SWARMDECK_TOKEN);
    // Every named volume a service mounts is declared; every file the compose file builds from exists.
    const named = Object.values(services)
      .flatMap((service: any) => service.volumes as string[])
      .map((mount) => mount.split(":")[0]!)
      .filter((source) => /^[a-z0-9-]+$/.test(source));
    for (const name of named) expect(Object.keys(volumes), name).toContain(name);
    for (const service of Object.values(services) as any[])
      if (service.build) expect(existsSync(path.join(ROOT, service.build.dockerfile))).toBe(true);
    // Every variable the workers read is one the worker or its entrypoint knows.
    const known = `${read("worker/config.ts")}\n${read("worker/entrypoint.sh")}`;
    for (const variable of Object.keys(services["worker-1"].environment)) expect(known, variable).toContain(variable);
  });

  it("has a postgresql profile: PostgreSQL, two app instances sharing their secrets, and a proxy in front of both", () => {
    const { services, volumes } = compose();
    for (const name of ["postgres", "app-pg-1", "app-pg-2", "proxy"]) expect(services[name].profiles).toEqual(["postgresql"]);
    for (const name of ["app-pg-1", "app-pg-2"]) {
      const app = services[name];
      expect(app.build.dockerfile).toBe("Dockerfile");
      expect(app.environment.DATABASE_URL).toMatch(/^postgresql:\/\/swarmdeck:\$\{POSTGRES_PASSWORD:-\}@postgres:5432\/swarmdeck$/);
      expect(app.environment.NEXTAUTH_SECRET).toBe("${NEXTAUTH_SECRET:-}");
      expect(app.environment.SWARMDECK_ENCRYPTION_KEY).toBe("${SWARMDECK_ENCRYPTION_KEY:-}");
      expect(app.depends_on.postgres.condition).toBe("service_healthy");
      expect(app.healthcheck.test.join(" ")).toContain("/api/health");
      // Only the proxy reaches them, and it passes the client's address on: the README's
      // "Behind a reverse proxy set SWARMDECK_TRUST_PROXY=1", or every sign-in counts as the proxy's.
      expect(app.ports, name).toBeUndefined();
      expect(app.environment.SWARMDECK_TRUST_PROXY, name).toBe("1");
    }
    expect(services["app-pg-1"].volumes).not.toEqual(services["app-pg-2"].volumes);
    expect(Object.keys(volumes)).toContain("postgres-data");
    // The proxy's configuration is in the repository and sends to both instances.
    const [config] = (services.proxy.volumes as string[])[0]!.split(":");
    const nginx = read(config!.replace(/^\.\//, ""));
    expect(nginx).toContain("server app-pg-1:3000");
    expect(nginx).toContain("server app-pg-2:3000");
    expect(nginx).toMatch(/proxy_read_timeout \d+s/);
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
  });
});
