"use client";

// Operator accounts (admin only): create, change role, disable, reset a password.
// The API keeps the last active admin from being demoted or disabled.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { UserPlus } from "lucide-react";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { api, describeError, fieldErrorsOf } from "@/lib/api-client";
import { USER_ROLES, type UserRole } from "@/lib/contracts/common";
import { MIN_PASSWORD_LENGTH, type UserDto } from "@/lib/contracts/users";
import { RelativeTime } from "../relative-time";
import { useSessionUser } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { ConfirmDialog, Dialog, FormActions } from "../ui/dialog";
import { useRevealFirstError } from "../ui/form-errors";
import { Field, Input, Select } from "../ui/input";
import { ErrorState, Loading } from "../ui/states";

type Patch = { role?: UserRole; disabled?: boolean; password?: string };

const NEW_USER_FIELDS = ["email", "name", "role", "password"] as const;
type NewUserErrors = Partial<Record<(typeof NEW_USER_FIELDS)[number], string>>;

export function UsersCard() {
  const me = useSessionUser();
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: ["users"], queryFn: () => api<{ users: UserDto[] }>("/api/v1/users") });
  const [creating, setCreatingState] = useState(false);
  const [resetting, setResettingState] = useState<UserDto | null>(null);
  // What the API refused, under its field and brought into view (on a phone the dialog's foot is far from its top).
  const [newUserErrors, setNewUserErrors] = useState<NewUserErrors>({});
  const [passwordError, setPasswordError] = useState<string | undefined>();
  const newUserProblems = useRevealFirstError();
  const resetProblems = useRevealFirstError();
  const setCreating = (open: boolean) => {
    setNewUserErrors({});
    setCreatingState(open);
  };
  const setResetting = (user: UserDto | null) => {
    setPasswordError(undefined);
    setResettingState(user);
  };
  // Taking access away (a lower role, disabling) asks first; giving it applies at once.
  const [removing, setRemoving] = useState<{ user: UserDto; patch: Patch } | null>(null);
  const ask = (user: UserDto, patch: Patch) => {
    const lower = patch.role !== undefined && USER_ROLES.indexOf(patch.role) > USER_ROLES.indexOf(user.role);
    if (lower || patch.disabled === true) setRemoving({ user, patch });
    else update.mutate({ user, patch });
  };

  const update = useMutation({
    mutationFn: ({ user, patch }: { user: UserDto; patch: Patch }) =>
      api<{ user: UserDto }>(`/api/v1/users/${user.id}`, { method: "PATCH", body: patch }),
    onSuccess: ({ user }, { user: before, patch }) => {
      toast.success(
        patch.password
          ? `Password of ${user.email} changed`
          : patch.role
            ? `Role of ${user.email}: ${before.role} → ${user.role}`
            : user.disabled
              ? `${user.email} is disabled and can no longer sign in`
              : `${user.email} is enabled and can sign in again`,
      );
      setResetting(null);
    },
    onError: (error, { patch }) => {
      const password = patch.password === undefined ? undefined : fieldErrorsOf(error, ["password"]).password;
      if (password) {
        setPasswordError(password);
        resetProblems.reveal();
      } else toast.error(describeError(error));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ["users"] }),
  });
  const create = useMutation({
    mutationFn: (body: Record<string, string>) => api<{ user: UserDto }>("/api/v1/users", { method: "POST", body }),
    onSuccess: ({ user }) => {
      toast.success(`User ${user.email} created`);
      setCreating(false);
      queryClient.invalidateQueries({ queryKey: ["users"] });
    },
    onError: (error) => {
      // A taken email is a 409 about the email.
      const byField = fieldErrorsOf(error, NEW_USER_FIELDS, { 409: "email" });
      setNewUserErrors(byField);
      if (Object.keys(byField).length === 0) toast.error(describeError(error));
      else newUserProblems.reveal();
    },
  });

  function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setNewUserErrors({});
    create.mutate({
      email: String(form.get("email") ?? ""),
      name: String(form.get("name") ?? ""),
      role: String(form.get("role") ?? "operator"),
      password: String(form.get("password") ?? ""),
    });
  }

  function onReset(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!resetting) return;
    setPasswordError(undefined);
    update.mutate({ user: resetting, patch: { password: String(new FormData(event.currentTarget).get("password") ?? "") } });
  }

  return (
    <Card>
      <CardHeader
        title="Users"
        description="Viewers read; operators also write; admins also manage users, tokens and security profiles."
        actions={
          <Button size="sm" onClick={() => setCreating(true)} data-testid="new-user">
            <UserPlus className="size-4" aria-hidden /> New user
          </Button>
        }
      />
      {users.isPending ? (
        <Loading />
      ) : users.isError ? (
        <ErrorState error={users.error} />
      ) : (
        <div className="overflow-x-auto">
          <table className="stack-table w-full text-sm" data-testid="users-table">
            <thead>
              <tr className="border-b border-border text-left text-xs text-fg-muted">
                <th className="px-4 py-2 font-medium">User</th>
                <th className="px-4 py-2 font-medium">Role</th>
                <th className="px-4 py-2 font-medium">Last sign-in</th>
                <th className="px-4 py-2" />
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {users.data.users.map((user) => (
                <tr key={user.id} className={user.disabled ? "text-fg-muted" : undefined}>
                  <td data-label="User" className="px-4 py-2">
                    {/* A space between email and name: without it a phone's card breaks the pair inside the name ("O|livia"). */}
                    <span className="font-medium">{user.email}</span>{" "}
                    {user.name ? (
                      <span className="ml-1 text-fg-muted" data-testid="user-name">
                        {user.name}
                      </span>
                    ) : null}
                    {user.id === me.id ? <Badge className="ml-2">you</Badge> : null}
                    {user.disabled ? (
                      <Badge tone="danger" className="ml-2">
                        disabled
                      </Badge>
                    ) : null}
                  </td>
                  <td data-label="Role" className="px-4 py-2">
                    <Select
                      aria-label={`Role of ${user.email}`}
                      className="h-8"
                      style={{ width: "8rem" }}
                      value={user.role}
                      disabled={update.isPending}
                      onChange={(event) => ask(user, { role: event.target.value as UserRole })}
                    >
                      {USER_ROLES.map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </Select>
                  </td>
                  <td data-label="Last sign-in" className="px-4 py-2">
                    <RelativeTime iso={user.lastLoginAt} />
                  </td>
                  <td data-actions className="px-4 py-2 text-right whitespace-nowrap">
                    <Button size="sm" variant="ghost" onClick={() => setResetting(user)}>
                      Reset password
                    </Button>
                    <Button size="sm" variant="ghost" onClick={() => ask(user, { disabled: !user.disabled })}>
                      {user.disabled ? "Enable" : "Disable"}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <ConfirmDialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        title={removing?.patch.disabled ? `Disable ${removing.user.email}?` : `Make ${removing?.user.email} ${removing?.patch.role}?`}
        description={
          removing?.patch.disabled
            ? `${removing.user.email} will no longer be able to sign in. You can enable the account again later.`
            : `${removing?.user.email} goes from ${removing?.user.role} to ${removing?.patch.role} and loses what only a${removing?.user.role === "admin" ? "n admin" : "n operator"} may do.`
        }
        confirmLabel={removing?.patch.disabled ? "Disable" : `Make ${removing?.patch.role}`}
        destructive
        onConfirm={() => {
          if (removing) update.mutate(removing);
          setRemoving(null);
        }}
      />
      <Dialog open={creating} onOpenChange={setCreating} title="New user">
        <form ref={newUserProblems.ref} onSubmit={onCreate} className="space-y-4" noValidate data-testid="new-user-form">
          <Field label="Email" htmlFor="user-email" error={newUserErrors.email}>
            <Input id="user-email" name="email" type="email" required autoFocus autoComplete="off" />
          </Field>
          <Field label="Name" htmlFor="user-name" hint="Optional." error={newUserErrors.name}>
            <Input id="user-name" name="name" autoComplete="off" maxLength={80} />
          </Field>
          <Field label="Role" htmlFor="user-role" error={newUserErrors.role}>
            <Select id="user-role" name="role" defaultValue="operator">
              {USER_ROLES.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </Select>
          </Field>
          <Field
            label="Password"
            htmlFor="user-password"
            hint={`At least ${MIN_PASSWORD_LENGTH} characters. Share it with them privately.`}
            error={newUserErrors.password}
          >
            <Input
              id="user-password"
              name="password"
              type="password"
              required
              minLength={MIN_PASSWORD_LENGTH}
              autoComplete="new-password"
            />
          </Field>
          <FormActions onCancel={() => setCreating(false)} submitLabel="Create user" busy={create.isPending} />
        </form>
      </Dialog>

      <Dialog
        open={resetting !== null}
        onOpenChange={(open) => !open && setResetting(null)}
        title={`New password for ${resetting?.email ?? ""}`}
      >
        <form ref={resetProblems.ref} onSubmit={onReset} className="space-y-4" noValidate>
          <Field label="New password" htmlFor="reset-password" hint={`At least ${MIN_PASSWORD_LENGTH} characters.`} error={passwordError}>
            <Input
              id="reset-password"
              name="password"
              type="password"
              required
              minLength={MIN_PASSWORD_LENGTH}
              autoFocus
              autoComplete="new-password"
            />
          </Field>
          <FormActions onCancel={() => setResetting(null)} submitLabel="Set password" busy={update.isPending} />
        </form>
      </Dialog>
    </Card>
  );
}
