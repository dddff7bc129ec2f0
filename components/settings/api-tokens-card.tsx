"use client";

// Operator API tokens (admin only): every token with its owner; create one for
// yourself or another user (shown once); revoke with a confirmation.
import { useQuery } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import type { FormEvent } from "react";
import { api } from "@/lib/api-client";
import type { ApiTokenDto } from "@/lib/contracts/tokens";
import type { UserDto } from "@/lib/contracts/users";
import { RelativeTime } from "../relative-time";
import { useSessionUser } from "../session-user";
import { TokenRevealDialog } from "../token-reveal-dialog";
import { RevokeTokenDialog, useTokenAdmin } from "../tokens/use-token-admin";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { Dialog, FormActions } from "../ui/dialog";
import { Field, Input, Select } from "../ui/input";
import { EmptyState, ErrorState, Loading } from "../ui/states";

export function ApiTokensCard() {
  const me = useSessionUser();
  const tokens = useQuery({ queryKey: ["api-tokens"], queryFn: () => api<{ tokens: ApiTokenDto[] }>("/api/v1/tokens") });
  const users = useQuery({ queryKey: ["users"], queryFn: () => api<{ users: UserDto[] }>("/api/v1/users") });
  const admin = useTokenAdmin({
    queryKey: ["api-tokens"],
    create: (body: { name: string; userId: string }) => api<ApiTokenDto & { token: string }>("/api/v1/tokens", { method: "POST", body }),
    revoke: (token: ApiTokenDto) => api(`/api/v1/tokens/${token.id}`, { method: "DELETE" }),
  });

  function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    admin.create.mutate({ name: String(form.get("name") ?? "").trim(), userId: String(form.get("userId") ?? me.id) });
  }

  return (
    <Card>
      <CardHeader
        title="Operator API tokens"
        description="For scripts and automation: send as “Authorization: Bearer sdo_…”. A token acts with its owner's role."
        actions={
          <Button size="sm" onClick={() => admin.setCreating(true)} data-testid="new-api-token">
            <Plus className="size-4" aria-hidden /> New token
          </Button>
        }
      />
      {tokens.isPending ? (
        <Loading />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} />
      ) : tokens.data.tokens.length === 0 ? (
        <EmptyState title="No API tokens">Create one for a script or a CI job.</EmptyState>
      ) : (
        <div className="overflow-x-auto">
          <table className="stack-table w-full text-sm" data-testid="api-tokens-table">
            <thead>
              <tr className="border-b border-border text-left text-xs text-fg-muted">
                <th className="px-4 py-2 font-medium">Name</th>
                <th className="px-4 py-2 font-medium">Owner</th>
                <th className="px-4 py-2 font-medium">Created</th>
                <th className="px-4 py-2 font-medium">Last used</th>
                <th className="px-4 py-2" />
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {tokens.data.tokens.map((token) => (
                <tr key={token.id} className={token.revokedAt ? "text-fg-muted" : undefined}>
                  <td data-label="Name" className="px-4 py-2">
                    <span className="font-medium">{token.name}</span> <code className="text-xs text-fg-muted">{token.prefix}</code>
                  </td>
                  <td data-label="Owner" className="px-4 py-2">
                    {token.owner.email} <span className="text-xs text-fg-muted">({token.owner.role})</span>
                  </td>
                  <td data-label="Created" className="px-4 py-2">
                    <RelativeTime iso={token.createdAt} />
                  </td>
                  <td data-label="Last used" className="px-4 py-2">
                    <RelativeTime iso={token.lastUsedAt} />
                  </td>
                  <td data-actions className="px-4 py-2 text-right">
                    {token.revokedAt ? (
                      <Badge tone="danger">revoked</Badge>
                    ) : (
                      <Button size="sm" variant="ghost" onClick={() => admin.setRevoking(token)}>
                        Revoke
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <Dialog open={admin.creating} onOpenChange={admin.setCreating} title="New operator API token">
        <form ref={admin.problems.ref} onSubmit={onCreate} className="space-y-4" noValidate>
          <Field label="Token name" htmlFor="api-token-name" hint="What uses it, e.g. “nightly report script”." error={admin.nameError}>
            <Input id="api-token-name" name="name" required maxLength={80} autoFocus autoComplete="off" />
          </Field>
          <Field label="Owner" htmlFor="api-token-owner" hint="The token acts with this user's role.">
            <Select id="api-token-owner" name="userId" defaultValue={me.id}>
              {(users.data?.users ?? [{ id: me.id, email: me.email, role: me.role, disabled: false } as UserDto])
                .filter((user) => !user.disabled)
                .map((user) => (
                  <option key={user.id} value={user.id}>
                    {user.email} ({user.role})
                  </option>
                ))}
            </Select>
          </Field>
          <FormActions onCancel={() => admin.setCreating(false)} submitLabel="Create token" busy={admin.create.isPending} />
        </form>
      </Dialog>

      <TokenRevealDialog token={admin.revealed} title="Operator API token created" onClose={admin.clearRevealed} />

      <RevokeTokenDialog admin={admin} consequence="Anything using this token is refused from its next request on." />
    </Card>
  );
}
