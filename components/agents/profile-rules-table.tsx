// What each security profile does with an agent's own change, per identity file
// (lib/identity/rules.ts IDENTITY_RULES: the table the write path obeys), and what an
// operator's grant on a task changes. The agent's own profile is highlighted. On a
// phone the table shows that profile's column and the grant's, so it fits the screen;
// a button brings the other two profiles in (the table then scrolls sideways).
"use client";

import { useState } from "react";
import { SECURITY_PROFILES, type SecurityProfile } from "@/lib/contracts/common";
import { AGENT_LOCKED_KINDS, IDENTITY_RULES, type ProfileOutcome } from "@/lib/identity/rules";
import { cn } from "../ui/cn";

const OUTCOME: Record<ProfileOutcome | "locked", { text: string; className: string }> = {
  apply: { text: "applied", className: "text-warn" },
  queue: { text: "proposal", className: "text-accent" },
  refuse: { text: "refused", className: "text-ok" },
  locked: { text: "locked", className: "text-fg-muted" },
};

const LOCKED_LABELS: Record<string, string> = { AGENT: "AGENT.md", CAPABILITIES: "capabilities.yaml", BOOTSTRAP: "BOOTSTRAP.md" };

export function ProfileRulesTable({ current }: { current?: SecurityProfile }) {
  const [comparing, setComparing] = useState(false);
  // Below the sm breakpoint, without comparing: the other profiles' columns are hidden.
  const narrowed = current !== undefined && !comparing;
  const hiddenOnPhone = (profile: SecurityProfile) => narrowed && profile !== current && "max-sm:hidden";
  const rows = [
    ...Object.entries(IDENTITY_RULES).map(([kind, rule]) => ({
      kind,
      label: rule.label,
      why: rule.why,
      cells: rule.profiles,
      granted: "apply" as const,
    })),
    ...AGENT_LOCKED_KINDS.map((kind) => ({
      kind,
      label: LOCKED_LABELS[kind] ?? kind,
      why: kind === "BOOTSTRAP" ? "retired by Swarmdeck" : "the cage",
      cells: { paranoid: "locked", standard: "locked", power: "locked" } as const,
      granted: "locked" as const,
    })),
  ];
  return (
    <div className="overflow-x-auto" data-testid="profile-rules">
      {current !== undefined ? (
        <button
          type="button"
          className="mb-2 text-xs font-medium text-accent hover:underline sm:hidden"
          aria-expanded={comparing}
          onClick={() => setComparing((value) => !value)}
          data-testid="profile-rules-compare"
        >
          {comparing ? `Show only ${current}` : "Compare all three profiles"}
        </button>
      ) : null}
      <table className={cn("w-full text-left text-xs", !narrowed && "max-sm:min-w-[30rem]")}>
        <caption className="sr-only">What happens to a change the agent makes to itself, per file and security profile</caption>
        <thead className="text-fg-muted">
          <tr className="border-b border-border">
            <th scope="col" className="py-1.5 pr-3 font-medium">
              File
            </th>
            {SECURITY_PROFILES.map((profile) => (
              <th
                key={profile}
                scope="col"
                className={cn("px-2 py-1.5 font-medium", profile === current && "rounded-t bg-accent/10 text-fg", hiddenOnPhone(profile))}
                data-current={profile === current ? "true" : undefined}
              >
                {profile}
              </th>
            ))}
            <th scope="col" className="px-2 py-1.5 font-medium" title="The task carries an operator's grant for this file">
              granted task
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.kind} className="border-b border-border/60 last:border-0" data-testid={`profile-rule-${row.kind}`}>
              <th scope="row" className="py-1.5 pr-3 font-normal">
                <span className="font-mono">{row.label}</span>
                <span className="block text-[11px] text-fg-muted">{row.why}</span>
              </th>
              {SECURITY_PROFILES.map((profile) => {
                const outcome = OUTCOME[row.cells[profile]];
                return (
                  <td
                    key={profile}
                    className={cn(
                      "px-2 py-1.5",
                      outcome.className,
                      profile === current && "bg-accent/10 font-medium",
                      hiddenOnPhone(profile),
                    )}
                  >
                    {outcome.text}
                  </td>
                );
              })}
              <td className={cn("px-2 py-1.5", OUTCOME[row.granted].className)}>{OUTCOME[row.granted].text}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="mt-2 text-[11px] text-fg-muted">
        A change the agent makes on its own follows its profile; a refused change's text is kept with its proposals. An operator makes a
        change an explicit request by granting a task identity rights.{" "}
        <code className="rounded bg-muted px-1 py-px font-mono">swarm identity propose</code> always waits for review, except on power.
      </p>
    </div>
  );
}
