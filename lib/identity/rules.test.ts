// The table of reference 002 and issue 12, written out cell by cell as literals:
// nothing here is computed from rules.ts, so a wrong rule there fails here.
import { describe, expect, it } from "vitest";
import { IDENTITY_KINDS } from "@/lib/contracts/identity";
import { decideWrite } from "./rules";

type Cell = "apply" | "propose" | "profile_forbids" | "locked";
type Row = { paranoid: Cell; standard: Cell; power: Cell };

// Agent-proposed (no grant), `swarm identity write` or an edited file.
const AGENT_WRITE: Record<string, Row> = {
  SOUL: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  IDENTITY: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  USER: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  CLAUDE: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  SETUP_SCRIPT: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  TOOLS: { paranoid: "propose", standard: "apply", power: "apply" },
  HEARTBEAT: { paranoid: "propose", standard: "apply", power: "apply" },
  AGENT: { paranoid: "locked", standard: "locked", power: "locked" },
  CAPABILITIES: { paranoid: "locked", standard: "locked", power: "locked" },
  BOOTSTRAP: { paranoid: "locked", standard: "locked", power: "locked" },
};
// Agent-proposed, `swarm identity propose`: power makes it a write; paranoid refuses what it refuses.
const AGENT_PROPOSE: Record<string, Row> = {
  SOUL: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  IDENTITY: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  USER: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  CLAUDE: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  SETUP_SCRIPT: { paranoid: "profile_forbids", standard: "propose", power: "apply" },
  TOOLS: { paranoid: "propose", standard: "propose", power: "apply" },
  HEARTBEAT: { paranoid: "propose", standard: "propose", power: "apply" },
  AGENT: { paranoid: "locked", standard: "locked", power: "locked" },
  CAPABILITIES: { paranoid: "locked", standard: "locked", power: "locked" },
  BOOTSTRAP: { paranoid: "locked", standard: "locked", power: "locked" },
};
// Explicit request (the task carries the operator's grant for this kind): allowed on every profile.
const GRANTED_WRITE: Record<string, Row> = {
  SOUL: { paranoid: "apply", standard: "apply", power: "apply" },
  IDENTITY: { paranoid: "apply", standard: "apply", power: "apply" },
  USER: { paranoid: "apply", standard: "apply", power: "apply" },
  CLAUDE: { paranoid: "apply", standard: "apply", power: "apply" },
  SETUP_SCRIPT: { paranoid: "apply", standard: "apply", power: "apply" },
  TOOLS: { paranoid: "apply", standard: "apply", power: "apply" },
  HEARTBEAT: { paranoid: "apply", standard: "apply", power: "apply" },
  AGENT: { paranoid: "locked", standard: "locked", power: "locked" },
  CAPABILITIES: { paranoid: "locked", standard: "locked", power: "locked" },
  BOOTSTRAP: { paranoid: "locked", standard: "locked", power: "locked" },
};

// The worker's resend of a write refused as stale (409), written against an older
// version: docs/architecture.md's "nothing is silently overwritten" keeps it a proposal on power
// too; the profile refuses it where it refuses a proposal.
const STALE_RESEND: Record<string, Row> = {
  SOUL: { paranoid: "profile_forbids", standard: "propose", power: "propose" },
  IDENTITY: { paranoid: "profile_forbids", standard: "propose", power: "propose" },
  USER: { paranoid: "profile_forbids", standard: "propose", power: "propose" },
  CLAUDE: { paranoid: "profile_forbids", standard: "propose", power: "propose" },
  SETUP_SCRIPT: { paranoid: "profile_forbids", standard: "propose", power: "propose" },
  TOOLS: { paranoid: "propose", standard: "propose", power: "propose" },
  HEARTBEAT: { paranoid: "propose", standard: "propose", power: "propose" },
  AGENT: { paranoid: "locked", standard: "locked", power: "locked" },
  CAPABILITIES: { paranoid: "locked", standard: "locked", power: "locked" },
  BOOTSTRAP: { paranoid: "locked", standard: "locked", power: "locked" },
};
// The same resend inside a task granted that kind: reviewed on every profile.
const GRANTED_STALE_RESEND: Record<string, Row> = {
  SOUL: { paranoid: "propose", standard: "propose", power: "propose" },
  IDENTITY: { paranoid: "propose", standard: "propose", power: "propose" },
  USER: { paranoid: "propose", standard: "propose", power: "propose" },
  CLAUDE: { paranoid: "propose", standard: "propose", power: "propose" },
  SETUP_SCRIPT: { paranoid: "propose", standard: "propose", power: "propose" },
  TOOLS: { paranoid: "propose", standard: "propose", power: "propose" },
  HEARTBEAT: { paranoid: "propose", standard: "propose", power: "propose" },
  AGENT: { paranoid: "locked", standard: "locked", power: "locked" },
  CAPABILITIES: { paranoid: "locked", standard: "locked", power: "locked" },
  BOOTSTRAP: { paranoid: "locked", standard: "locked", power: "locked" },
};

const TABLES = [
  { name: "agent-proposed write", granted: false, mode: "write", table: AGENT_WRITE },
  { name: "agent-proposed proposal", granted: false, mode: "propose", table: AGENT_PROPOSE },
  { name: "granted write", granted: true, mode: "write", table: GRANTED_WRITE },
  { name: "stale resend", granted: false, mode: "review", table: STALE_RESEND },
  { name: "granted stale resend", granted: true, mode: "review", table: GRANTED_STALE_RESEND },
] as const;

describe("decideWrite: reference 002 per identity kind", () => {
  it("the tables name every identity kind", () => {
    for (const { table } of TABLES) expect(Object.keys(table).sort()).toEqual([...IDENTITY_KINDS].sort());
  });

  for (const { name, granted, mode, table } of TABLES) {
    for (const [kind, row] of Object.entries(table)) {
      for (const [profile, want] of Object.entries(row)) {
        for (const writer of ["agent", "lead"] as const) {
          it(`${name} of ${kind} by ${writer} on ${profile} → ${want}`, () => {
            const decision = decideWrite({
              kind: kind as (typeof IDENTITY_KINDS)[number],
              writer,
              profile: profile as "paranoid",
              granted,
              mode,
            });
            if (want === "locked" || want === "profile_forbids") {
              expect(decision).toMatchObject({ outcome: "deny", code: want });
            } else expect(decision).toEqual({ outcome: want });
          });
        }
      }
    }
  }

  it("a granted proposal is still a proposal, except on power", () => {
    expect(decideWrite({ kind: "SOUL", writer: "agent", profile: "paranoid", granted: true, mode: "propose" })).toEqual({
      outcome: "propose",
    });
    expect(decideWrite({ kind: "SOUL", writer: "agent", profile: "standard", granted: true, mode: "propose" })).toEqual({
      outcome: "propose",
    });
    expect(decideWrite({ kind: "SOUL", writer: "agent", profile: "power", granted: true, mode: "propose" })).toEqual({ outcome: "apply" });
  });

  it("operators write every kind, the cage included, on every profile", () => {
    for (const kind of IDENTITY_KINDS) {
      for (const profile of ["paranoid", "standard", "power"] as const) {
        expect(decideWrite({ kind, writer: "operator", profile, granted: false })).toEqual({ outcome: "apply" });
      }
    }
  });

  it("a refusal tells the agent how a person can allow it", () => {
    const decision = decideWrite({ kind: "CLAUDE", writer: "agent", profile: "paranoid", granted: false });
    expect(decision.outcome === "deny" && decision.message).toMatch(/grant/);
  });
});
