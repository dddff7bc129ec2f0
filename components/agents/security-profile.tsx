"use client";

// What each security profile lets an agent do to its own identity (DESIGN.md,
// "Identity rules"); admins change it, everyone else sees why it matters.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ShieldCheck } from "lucide-react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import type { AgentDto } from "@/lib/contracts/agents";
import { SECURITY_PROFILES, type SecurityProfile } from "@/lib/contracts/common";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Card, CardHeader } from "../ui/card";
import { Select } from "../ui/input";

export const PROFILE_HELP: Record<SecurityProfile, string> = {
  paranoid: "The agent may not change its SOUL, IDENTITY or USER files on its own; such changes are refused.",
  standard: "The agent's own changes to SOUL, IDENTITY and USER wait as proposals for an operator's review.",
  power: "The agent's own changes to SOUL, IDENTITY and USER apply at once (still versioned and audited).",
};

const TONE = { paranoid: "ok", standard: "accent", power: "warn" } as const;

export function SecurityProfileCard({ agent }: { agent: AgentDto }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (securityProfile: SecurityProfile) =>
      api<{ agent: AgentDto }>(`/api/v1/agents/${agent.id}`, { method: "PATCH", body: { securityProfile } }),
    onSuccess: ({ agent: updated }) => {
      queryClient.setQueryData(["agent", agent.id], { agent: updated });
      queryClient.invalidateQueries({ queryKey: ["agents"] });
      toast.success(`Security profile is now ${updated.securityProfile}`);
    },
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <Card>
      <CardHeader
        title="Security profile"
        description="How far the agent may rewrite its own identity. AGENT.md and capabilities are always locked."
      />
      <div className="space-y-3 px-4 py-4">
        {can.admin ? (
          <div className="flex items-center gap-3">
            <Select
              aria-label="Security profile"
              style={{ width: "12rem" }}
              value={agent.securityProfile}
              disabled={change.isPending}
              onChange={(event) => change.mutate(event.target.value as SecurityProfile)}
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
      </div>
    </Card>
  );
}
