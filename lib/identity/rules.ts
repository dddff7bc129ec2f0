// Who may write which identity file, and how (DESIGN.md "Identity rules"). One
// pure function so every cell of kind × actor × profile × trigger × mode is
// unit-tested (rules.test.ts) and every route asks the same question.

import type { SecurityProfile } from "@/lib/contracts/common";
import type { IdentityKind, Trigger } from "@/lib/contracts/identity";

export type WriterKind = "operator" | "agent" | "lead";
export type WriteMode = "write" | "propose";

export type WriteDecision =
  | { outcome: "apply" }
  | { outcome: "propose" }
  | { outcome: "deny"; code: "locked" | "profile_forbids"; message: string };

/** The cage: agents never write these. BOOTSTRAP too: it is the operator's birth script, retired by Swarmdeck itself. */
export const AGENT_LOCKED_KINDS: readonly IdentityKind[] = ["AGENT", "CAPABILITIES", "BOOTSTRAP"];
/** Who the agent is: gated by the security profile unless the person asked for it. */
export const PROFILE_GATED_KINDS: readonly IdentityKind[] = ["SOUL", "IDENTITY", "USER"];

export function isAgentLocked(kind: IdentityKind): boolean {
  return AGENT_LOCKED_KINDS.includes(kind);
}

export function decideWrite({
  kind,
  writer,
  profile,
  trigger,
  mode = "write",
}: {
  kind: IdentityKind;
  writer: WriterKind;
  profile: SecurityProfile;
  trigger: Trigger;
  mode?: WriteMode;
}): WriteDecision {
  if (writer === "operator") return { outcome: "apply" };
  if (isAgentLocked(kind)) {
    return { outcome: "deny", code: "locked", message: `Agents cannot write ${kind}: it is set by operators only` };
  }
  if (PROFILE_GATED_KINDS.includes(kind)) {
    if (trigger === "agent" && profile === "paranoid") {
      return {
        outcome: "deny",
        code: "profile_forbids",
        message: `The paranoid profile refuses agent-initiated changes to ${kind}; they need an explicit user request`,
      };
    }
    if (mode === "propose") return { outcome: "propose" };
    if (trigger === "user_request") return { outcome: "apply" };
    return profile === "power" ? { outcome: "apply" } : { outcome: "propose" };
  }
  return mode === "propose" ? { outcome: "propose" } : { outcome: "apply" };
}
