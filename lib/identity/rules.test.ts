import { describe, expect, it } from "vitest";
import { SECURITY_PROFILES } from "@/lib/contracts/common";
import { IDENTITY_KINDS, type IdentityKind, TRIGGERS } from "@/lib/contracts/identity";
import { decideWrite, type WriteDecision, type WriteMode, type WriterKind } from "./rules";

const LOCKED: IdentityKind[] = ["AGENT", "CAPABILITIES", "BOOTSTRAP"];
const GATED: IdentityKind[] = ["SOUL", "IDENTITY", "USER"];
const FREE: IdentityKind[] = ["TOOLS", "CLAUDE", "HEARTBEAT", "SETUP_SCRIPT"];

/** The table of DESIGN.md "Identity rules", written out independently of rules.ts. */
function expected(
  kind: IdentityKind,
  writer: WriterKind,
  profile: string,
  trigger: string,
  mode: WriteMode,
): WriteDecision["outcome"] | "locked" | "profile_forbids" {
  if (writer === "operator") return "apply";
  if (LOCKED.includes(kind)) return "locked";
  if (FREE.includes(kind)) return mode === "propose" ? "propose" : "apply";
  if (trigger === "agent" && profile === "paranoid") return "profile_forbids";
  if (mode === "propose") return "propose";
  if (trigger === "user_request") return "apply";
  return profile === "power" ? "apply" : "propose";
}

describe("decideWrite: every cell of kind × writer × profile × trigger × mode", () => {
  it("covers all ten kinds in exactly one class", () => {
    expect([...LOCKED, ...GATED, ...FREE].sort()).toEqual([...IDENTITY_KINDS].sort());
  });

  for (const kind of IDENTITY_KINDS) {
    for (const writer of ["operator", "agent", "lead"] as const) {
      for (const profile of SECURITY_PROFILES) {
        for (const trigger of TRIGGERS) {
          for (const mode of ["write", "propose"] as const) {
            const want = expected(kind, writer, profile, trigger, mode);
            it(`${kind} by ${writer} on ${profile}, trigger ${trigger}, mode ${mode} → ${want}`, () => {
              const decision = decideWrite({ kind, writer, profile, trigger, mode });
              if (want === "locked" || want === "profile_forbids") {
                expect(decision).toMatchObject({ outcome: "deny", code: want });
                expect(decision.outcome === "deny" && decision.message).toMatch(kind);
              } else {
                expect(decision).toEqual({ outcome: want });
              }
            });
          }
        }
      }
    }
  }

  it("spells out the headline rules", () => {
    expect(decideWrite({ kind: "SOUL", writer: "agent", profile: "paranoid", trigger: "agent" }).outcome).toBe("deny");
    expect(decideWrite({ kind: "SOUL", writer: "agent", profile: "paranoid", trigger: "user_request" }).outcome).toBe("apply");
    expect(decideWrite({ kind: "SOUL", writer: "agent", profile: "standard", trigger: "agent" }).outcome).toBe("propose");
    expect(decideWrite({ kind: "SOUL", writer: "agent", profile: "power", trigger: "agent" }).outcome).toBe("apply");
    expect(decideWrite({ kind: "SOUL", writer: "agent", profile: "power", trigger: "agent", mode: "propose" }).outcome).toBe("propose");
    expect(decideWrite({ kind: "TOOLS", writer: "lead", profile: "paranoid", trigger: "agent" }).outcome).toBe("apply");
    expect(decideWrite({ kind: "AGENT", writer: "lead", profile: "power", trigger: "user_request" })).toMatchObject({ code: "locked" });
    expect(decideWrite({ kind: "CAPABILITIES", writer: "operator", profile: "paranoid", trigger: "agent" }).outcome).toBe("apply");
  });
});
