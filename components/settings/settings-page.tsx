"use client";

import { useCan } from "../session-user";
import { PageHeader } from "../ui/card";
import { ApiTokensCard } from "./api-tokens-card";
import { SessionsCard } from "./sessions-card";
import { SetupScriptCard } from "./setup-script-card";
import { SystemCard } from "./system-card";
import { UsersCard } from "./users-card";

export function SettingsPage() {
  const can = useCan();
  return (
    <div className="space-y-6">
      <PageHeader title="Settings" description="Swarm-wide configuration, API tokens and operator accounts." />
      <SetupScriptCard />
      {can.admin ? (
        <>
          <ApiTokensCard />
          <UsersCard />
        </>
      ) : (
        <p className="text-sm text-fg-muted">API tokens and users are managed by admins.</p>
      )}
      <SessionsCard />
      <SystemCard />
    </div>
  );
}
