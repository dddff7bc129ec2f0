"use client";

// What each security profile lets an agent do to its own identity (docs/architecture.md,
// "Identity rules"); admins change it, everyone else sees why it matters.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ShieldCheck } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import type { AgentDto } from "@/lib/contracts/agents";
import { SECURITY_PROFILES, type SecurityProfile } from "@/lib/contracts/common";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Card, CardHeader } from "../ui/card";
import { ConfirmDialog } from "../ui/dialog";
import { Select } from "../ui/input";
import { ProfileRulesTable } from "./profile-rules-table";

export const PROFILE_HELP: Record<SecurityProfile, string> = {
  paranoid:
    "The agent changes none of the files that steer it (SOUL, IDENTITY, USER, CLAUDE.md, setup script) on its own: such changes are refused, their text kept. Its notes wait for review.",
  standard: "The agent's own changes to the files that steer it wait as proposals for an operator's review; its notes apply.",
  power: "The agent's own changes apply at once, proposals included (still versioned and audited).",
};

const SECURITY_RANK: Record<SecurityProfile, number> = { paranoid: 0, standard: 1, power: 2 };

const TONE = { paranoid: "ok", standard: "accent", power: "warn" } as const;

export function SecurityProfileCard({ agent }: { agent: AgentDto }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (securityProfile: SecurityProfile) =>
      api<{ agent: AgentDto }>(`/api/v1/agents/${agent.id}`, { method: "PATCH", body: { securityProfile } }),
    onSuccess: ({ agent: updated }, _profile, previous) => {
      queryClient.setQueryData(["agent", agent.id], { agent: updated });
      queryClient.invalidateQueries({ queryKey: ["agents"] });
      toast.success(`Security profile of ${updated.name}: ${previous} → ${updated.securityProfile}`, {
        description: PROFILE_HELP[updated.securityProfile],
      });
    },
    onMutate: () => agent.securityProfile,
    onError: (error) => toast.error(describeError(error)),
  });
  // Widening what the agent may do to itself asks first; narrowing applies at once.
  const [widening, setWidening] = useState<SecurityProfile | null>(null);
  const pick = (next: SecurityProfile) => {
    if (next === agent.securityProfile) return;
    if (SECURITY_RANK[next] > SECURITY_RANK[agent.securityProfile]) setWidening(next);
    else change.mutate(next);
  };
  return (
    <Card>
      <CardHeader
        title="Security profile"
        description="How far the agent may rewrite its own identity. AGENT.md and capabilities.yaml are always locked."
      />
      <div className="space-y-3 px-4 py-4">
        {can.admin ? (
          <div className="flex items-center gap-3">
            <Select
              aria-label="Security profile"
              style={{ width: "12rem" }}
              value={agent.securityProfile}
              disabled={change.isPending}
              onChange={(event) => pick(event.target.value as SecurityProfile)}
              data-testid="security-profile-select"
            >
              {SECURITY_PROFILES.map((profile) => (
                <option key={profile} value={profile}>
                  {profile}
                </option>
              ))}
            </Select>
            {change.isPending ? <span className="text-xs text-fg-muted">Saving…</span> : null}
          </div>
        ) : (
          <div className="flex items-center gap-2">
            <Badge tone={TONE[agent.securityProfile]}>
              <ShieldCheck className="size-3" aria-hidden /> {agent.securityProfile}
            </Badge>
            <span className="text-xs text-fg-muted">Only an admin can change the security profile.</span>
          </div>
        )}
        <p className="text-sm text-fg-muted" data-testid="security-profile-help">
          {PROFILE_HELP[agent.securityProfile]}
        </p>
        <ProfileRulesTable current={agent.securityProfile} />
        <ConfirmDialog
          open={widening !== null}
          onOpenChange={(open) => !open && setWidening(null)}
          title={`Give ${agent.name} the ${widening ?? ""} profile?`}
          description={
            widening
              ? `This widens what ${agent.name} may do to itself (${agent.securityProfile} → ${widening}): ${PROFILE_HELP[widening]}`
              : ""
          }
          confirmLabel={`Switch to ${widening ?? ""}`}
          destructive
          onConfirm={() => {
            if (widening) change.mutate(widening);
            setWidening(null);
          }}
        />
      </div>
    </Card>
  );
}
