// Who may change which identity file, and how (reference 002's table, extended to
// every identity kind). One table, IDENTITY_RULES, is the rule: the write path asks
// decideWrite, the Security profile panel and the README show the same table.
//
// An agent's change is "granted" only where a person asked for it: the operator
// granted the task identity rights for that kind (or the bootstrap ritual did), and
// the write comes from that task's agent while the task is claimed (writes.ts checks
// that). Everything else an agent writes is agent-proposed and follows its profile.

import type { SecurityProfile } from "@/lib/contracts/common";
import type { IdentityKind } from "@/lib/contracts/identity";
import type { GRANTABLE_KINDS } from "@/lib/contracts/tasks";

type GrantableKind = (typeof GRANTABLE_KINDS)[number];

export type WriterKind = "operator" | "agent" | "lead";
export type WriteMode = "write" | "propose" | "review";

/** What happens to an agent-proposed change: applied, queued for an operator, or refused (text kept). */
export type ProfileOutcome = "apply" | "queue" | "refuse";

export type WriteDecision =
  | { outcome: "apply" }
  | { outcome: "propose" }
  | { outcome: "deny"; code: "locked" | "profile_forbids"; message: string };

/** The cage: agents never write these (reference 002: AGENT.md and capabilities.yaml; BOOTSTRAP.md is retired by Swarmdeck). */
export const AGENT_LOCKED_KINDS: readonly IdentityKind[] = ["AGENT", "CAPABILITIES", "BOOTSTRAP"];

type KindRule = { label: string; why: string; profiles: Record<SecurityProfile, ProfileOutcome> };

/** The files that steer the agent: who it is (SOUL, IDENTITY, USER), what Claude Code obeys (CLAUDE.md) and what runs before it (setup script). */
const STEERING: Record<SecurityProfile, ProfileOutcome> = { paranoid: "refuse", standard: "queue", power: "apply" };
/** Its own notes: reviewed on paranoid, its own business otherwise. */
const NOTES: Record<SecurityProfile, ProfileOutcome> = { paranoid: "queue", standard: "apply", power: "apply" };

/** Agent-proposed changes, per agent-writable kind and profile. A granted write is applied on every profile. */
export const IDENTITY_RULES: Record<GrantableKind, KindRule> = {
  SOUL: { label: "SOUL.md", why: "who it is: values, philosophy", profiles: STEERING },
  IDENTITY: { label: "IDENTITY.md", why: "how it presents itself", profiles: STEERING },
  USER: { label: "USER.md", why: "what it knows about its users", profiles: STEERING },
  CLAUDE: { label: "CLAUDE.md", why: "instructions Claude Code obeys", profiles: STEERING },
  SETUP_SCRIPT: { label: "setup script", why: "runs on the worker's machine at start and whenever it changes", profiles: STEERING },
  TOOLS: { label: "TOOLS.md", why: "its notes on its tools", profiles: NOTES },
  HEARTBEAT: { label: "HEARTBEAT.md", why: "its idle-time checklist", profiles: NOTES },
};

/** What the bootstrap ritual grants its task. */
export const BOOTSTRAP_GRANT: readonly IdentityKind[] = ["SOUL", "IDENTITY", "USER"];

export function isAgentLocked(kind: IdentityKind): boolean {
  return AGENT_LOCKED_KINDS.includes(kind);
}

export function profileOutcome(kind: IdentityKind, profile: SecurityProfile): ProfileOutcome | "locked" {
  return isAgentLocked(kind) ? "locked" : IDENTITY_RULES[kind as GrantableKind].profiles[profile];
}

/**
 * `granted`: the write comes from a claimed task whose grant names this kind.
 * `mode: "propose"` (`swarm identity propose`) asks for a review even where a write
 * would apply, except on power, where a proposal is a write (reference 002).
 * `mode: "review"` (the worker's resend of a write refused as stale) asks for one on
 * power too: its text was written against an older version, and applying it would
 * overwrite the newer one unseen. It is refused wherever a proposal would be.
 */
export function decideWrite({
  kind,
  writer,
  profile,
  granted,
  mode = "write",
}: {
  kind: IdentityKind;
  writer: WriterKind;
  profile: SecurityProfile;
  granted: boolean;
  mode?: WriteMode;
}): WriteDecision {
  if (writer === "operator") return { outcome: "apply" };
  const rule = profileOutcome(kind, profile);
  if (rule === "locked") {
    return { outcome: "deny", code: "locked", message: `Agents cannot write ${kind}: it is set by operators only` };
  }
  if (mode === "propose" && profile === "power") return { outcome: "apply" };
  if (granted) return mode === "write" ? { outcome: "apply" } : { outcome: "propose" };
  if (rule === "refuse") {
    return {
      outcome: "deny",
      code: "profile_forbids",
      message: `The ${profile} profile refuses agent-proposed changes to ${kind}; an operator can grant a task the right to change it`,
    };
  }
  return rule === "apply" && mode === "write" ? { outcome: "apply" } : { outcome: "propose" };
}
