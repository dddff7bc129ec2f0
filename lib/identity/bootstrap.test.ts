// Bootstrap and prompt assembly against a real SQLite database (migrated like
// production): retirement, re-bootstrap, restoring the template, and that no
// earlier version is ever touched.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDeploy } from "@/scripts/launch";

const dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-identity-unit-"));
const previousUrl = process.env.DATABASE_URL;
process.env.DATABASE_URL = `file:${path.join(dir, "unit.db")}`;

type Modules = {
  agents: typeof import("@/lib/agents/agents");
  audit: typeof import("@/lib/audit/audit-log");
  bootstrap: typeof import("./bootstrap");
  prompt: typeof import("./prompt");
  writes: typeof import("./writes");
  workspace: typeof import("./workspace-files");
  db: typeof import("@/lib/db");
};
let m: Modules;

beforeAll(async () => {
  migrateDeploy({ ...process.env });
  m = {
    agents: await import("@/lib/agents/agents"),
    audit: await import("@/lib/audit/audit-log"),
    bootstrap: await import("./bootstrap"),
    prompt: await import("./prompt"),
    writes: await import("./writes"),
    workspace: await import("./workspace-files"),
    db: await import("@/lib/db"),
  };
}, 60_000);

afterAll(async () => {
  // Every connection closed, the checkpoint thread's too, before its folder goes.
  await m?.db.closeDatabase();
  if (previousUrl === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = previousUrl;
  rmSync(dir, { recursive: true, force: true });
});

const operator = { type: "operator" as const, id: "user-1" };
let counter = 0;
async function newAgent() {
  counter += 1;
  return m.agents.createAgent({ input: { name: `unit-agent-${counter}` }, actor: m.audit.SYSTEM_ACTOR });
}

async function versions(agentId: string, kind: string) {
  return m.db.db.identityVersion.findMany({ where: { agentId, kind }, orderBy: { number: "asc" } });
}

describe("bootstrap", () => {
  it("an agent started from templates has no BOOTSTRAP.md and never runs the ritual", async () => {
    const agent = await newAgent();
    const first = await m.prompt.buildSystemPrompt({ agentId: agent.id });
    expect(first.bootstrap).toBe(false);
    expect(first.systemPrompt).toContain("# SOUL.md");
    expect(first.systemPrompt).not.toContain("You only get born once");
    const soul = await versions(agent.id, "SOUL");
    expect(first.soulVersionId).toBe(soul[0]?.id);
    expect(await versions(agent.id, "BOOTSTRAP")).toEqual([]);
    expect((await m.workspace.getWorkspaceFiles({ agentId: agent.id })).map((f) => f.path)).not.toContain("BOOTSTRAP.md");
  });

  it("an agent that bootstraps itself starts with BOOTSTRAP.md and no SOUL, IDENTITY or USER: its prompt is the ritual under AGENT.md", async () => {
    counter += 1;
    const agent = await m.agents.createAgent({
      input: { name: `unit-agent-${counter}`, identityStart: "bootstrap" },
      actor: m.audit.SYSTEM_ACTOR,
    });
    for (const kind of ["SOUL", "IDENTITY", "USER"]) expect(await versions(agent.id, kind)).toEqual([]);
    expect((await versions(agent.id, "BOOTSTRAP"))[0]?.content).toContain("You only get born once");
    const built = await m.prompt.buildSystemPrompt({ agentId: agent.id });
    expect(built.bootstrap).toBe(true);
    expect(built.systemPrompt.startsWith("# AGENT.md")).toBe(true);
    expect(built.systemPrompt).toContain("You only get born once");
  });

  it("re-bootstrap puts the ritual under AGENT.md's rules; it ends (BOOTSTRAP.md retired) once SOUL and IDENTITY both exist", async () => {
    const agent = await newAgent();
    await m.prompt.buildSystemPrompt({ agentId: agent.id });
    const soulBefore = await versions(agent.id, "SOUL");
    const result = await m.bootstrap.rebootstrapAgent({ agentId: agent.id, actor: m.audit.SYSTEM_ACTOR, author: operator });
    expect(result.erased).toEqual(["SOUL.md", "IDENTITY.md", "USER.md"]);

    const reborn = await m.prompt.buildSystemPrompt({ agentId: agent.id });
    expect(reborn).toMatchObject({ bootstrap: true, soulVersionId: null });
    expect(reborn.systemPrompt.startsWith("# AGENT.md")).toBe(true);
    expect(reborn.systemPrompt).toContain("You only get born once");

    const soulFile = await m.db.db.identityFile.findUniqueOrThrow({ where: { agentId_kind: { agentId: agent.id, kind: "SOUL" } } });
    await m.writes.writeIdentityAsOperator({
      agentId: agent.id,
      kind: "SOUL",
      content: "# SOUL\nnew me",
      baseVersionId: soulFile.currentVersionId,
      author: operator,
      source: "api",
      actor: m.audit.SYSTEM_ACTOR,
    });
    const halfway = await m.prompt.buildSystemPrompt({ agentId: agent.id });
    expect(halfway.bootstrap).toBe(true);
    expect(halfway.systemPrompt).toContain("new me");
    expect((await versions(agent.id, "BOOTSTRAP")).at(-1)?.deleted).toBe(false);

    const identityFile = await m.db.db.identityFile.findUniqueOrThrow({ where: { agentId_kind: { agentId: agent.id, kind: "IDENTITY" } } });
    await m.writes.writeIdentityAsOperator({
      agentId: agent.id,
      kind: "IDENTITY",
      content: "# IDENTITY\nName: Quill",
      baseVersionId: identityFile.currentVersionId,
      author: operator,
      source: "api",
      actor: m.audit.SYSTEM_ACTOR,
    });
    const boot = await versions(agent.id, "BOOTSTRAP");
    expect(boot.at(-1)).toMatchObject({ deleted: true, source: "bootstrap" });

    // Nothing earlier was rewritten: the archived SOUL versions keep their text.
    const soulAfter = await versions(agent.id, "SOUL");
    expect(soulAfter.slice(0, soulBefore.length).map((v) => [v.id, v.content, v.contentHash])).toEqual(
      soulBefore.map((v) => [v.id, v.content, v.contentHash]),
    );
    expect(soulAfter.map((v) => v.number)).toEqual([1, 2, 3]);
  });

  it("restores the default BOOTSTRAP.md when there is neither SOUL nor BOOTSTRAP (reference 002)", async () => {
    const agent = await newAgent();
    await m.prompt.buildSystemPrompt({ agentId: agent.id });
    await m.db.db.$transaction(async (tx) => {
      const soul = await tx.identityFile.findUniqueOrThrow({
        where: { agentId_kind: { agentId: agent.id, kind: "SOUL" } },
        include: { currentVersion: true },
      });
      const { appendVersion } = await import("./versions");
      await appendVersion(tx, { file: soul, content: "", deleted: true, author: operator, source: "editor", actor: m.audit.SYSTEM_ACTOR });
    });
    const preview = await m.prompt.previewSystemPrompt({ agentId: agent.id });
    expect(preview.bootstrap).toBe(true);
    expect(preview.notes.join(" ")).toContain("default template will be restored");
    expect(await versions(agent.id, "BOOTSTRAP")).toEqual([]);
    const built = await m.prompt.buildSystemPrompt({ agentId: agent.id });
    expect(built.bootstrap).toBe(true);
    expect(built.systemPrompt).toContain("You only get born once");
    expect((await versions(agent.id, "BOOTSTRAP")).at(-1)).toMatchObject({ deleted: false, source: "bootstrap", number: 1 });
  });

  it("cuts an oversized file in the assembled prompt at SWARMDECK_PROMPT_FILE_CAP_CHARS", async () => {
    const agent = await newAgent();
    const soulFile = await m.db.db.identityFile.findUniqueOrThrow({ where: { agentId_kind: { agentId: agent.id, kind: "SOUL" } } });
    await m.writes.writeIdentityAsOperator({
      agentId: agent.id,
      kind: "SOUL",
      content: `# SOUL\n${"Patience. ".repeat(3000)}`,
      baseVersionId: soulFile.currentVersionId,
      author: operator,
      source: "api",
      actor: m.audit.SYSTEM_ACTOR,
    });
    process.env.SWARMDECK_PROMPT_FILE_CAP_CHARS = "2000";
    try {
      const built = await m.prompt.buildSystemPrompt({ agentId: agent.id });
      expect(built.truncated).toEqual(["SOUL.md"]);
      expect(built.systemPrompt).toMatch(/\[… SOUL\.md truncated: [\d,]+ of 30,006 characters shown/);
    } finally {
      delete process.env.SWARMDECK_PROMPT_FILE_CAP_CHARS;
    }
  });
});
