import { describe, expect, it } from "vitest";
import { parseCapabilities } from "@/lib/contracts/capabilities";
import { IDENTITY_KINDS } from "@/lib/contracts/identity";
import { fillTemplate, renderTemplate } from "./templates";

const agent = { name: "builder-1", displayName: "Builder", role: "worker", description: "TypeScript services", maxConcurrentTasks: 2 };

describe("identity templates", () => {
  it("render for every kind with no placeholder left", () => {
    for (const kind of IDENTITY_KINDS) {
      const text = renderTemplate(kind, agent);
      expect(text, kind).not.toMatch(/\{\{\w+\}\}/);
    }
  });

  it("give SOUL.md the Growth Mindset and Self-Evolution sections", () => {
    const soul = renderTemplate("SOUL", agent);
    expect(soul).toContain("## Growth Mindset");
    expect(soul).toContain("## Self-Evolution");
    expect(soul).toContain("builder-1");
  });

  it("give TOOLS.md the structured sections of reference 000", () => {
    const tools = renderTemplate("TOOLS", agent);
    for (const heading of ["What Goes Here", "Repos", "Services", "Infrastructure", "APIs & Integrations", "Tools & Shortcuts", "Notes"]) {
      expect(tools).toContain(`## ${heading}`);
    }
  });

  it("name every identity file in CLAUDE.md and fill capabilities limits", () => {
    const claude = renderTemplate("CLAUDE", agent);
    for (const file of [
      "AGENT.md",
      "SOUL.md",
      "IDENTITY.md",
      "USER.md",
      "TOOLS.md",
      "CLAUDE.md",
      "HEARTBEAT.md",
      "BOOTSTRAP.md",
      "start-up.sh",
      "capabilities.yaml",
    ]) {
      expect(claude).toContain(file);
    }
    // A new agent's cage is valid as saved: the worker enforces exactly what it says.
    expect(parseCapabilities(renderTemplate("CAPABILITIES", agent))).toMatchObject({
      ok: true,
      value: { limits: { max_task_minutes: 60 } },
    });
  });

  it("keeps unknown placeholders visible", () => {
    expect(fillTemplate("{{name}} {{nope}}", { name: "x" })).toBe("x {{nope}}");
  });
});
