"use client";

// What the worker-token and operator-token cards share: the create mutation that
// reveals the new token once (a refused name shown under its field, in view), and
// revoke behind a confirmation.
import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { describeError, fieldErrorsOf } from "@/lib/api-client";
import { ConfirmDialog } from "../ui/dialog";
import { useRevealFirstError } from "../ui/form-errors";

type RevocableToken = { id: string; name: string };

export function useTokenAdmin<T extends RevocableToken, B>({
  queryKey,
  create,
  revoke,
}: {
  queryKey: QueryKey;
  create: (body: B) => Promise<{ token: string }>;
  revoke: (token: T) => Promise<unknown>;
}) {
  const queryClient = useQueryClient();
  const [creating, setCreatingState] = useState(false);
  const [nameError, setNameError] = useState<string | undefined>();
  const problems = useRevealFirstError();
  const setCreating = (open: boolean) => {
    setNameError(undefined);
    setCreatingState(open);
  };
  const [revealed, setRevealed] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<T | null>(null);

  const createMutation = useMutation({
    mutationFn: create,
    onSuccess: (created) => {
      setCreating(false);
      setRevealed(created.token);
      queryClient.invalidateQueries({ queryKey });
    },
    onMutate: () => setNameError(undefined),
    onError: (error) => {
      const name = fieldErrorsOf(error, ["name"]).name;
      if (!name) return toast.error(describeError(error));
      setNameError(name);
      problems.reveal();
    },
  });
  const revokeMutation = useMutation({
    mutationFn: revoke,
    onSuccess: (_data, token) => {
      toast.success(`Token "${token.name}" revoked`);
      setRevoking(null);
      queryClient.invalidateQueries({ queryKey });
    },
    onError: (error) => toast.error(describeError(error)),
  });

  return {
    creating,
    setCreating,
    /** The API's message about the token's name, for the name field; `problems.ref` goes on the form. */
    nameError,
    problems,
    revealed,
    clearRevealed: () => setRevealed(null),
    revoking,
    setRevoking,
    create: createMutation,
    revoke: revokeMutation,
  };
}

/** The confirmation before a token is revoked; `consequence` says who is refused from then on. */
export function RevokeTokenDialog<T extends RevocableToken>({
  admin,
  consequence,
}: {
  admin: {
    revoking: T | null;
    setRevoking: (token: T | null) => void;
    revoke: { isPending: boolean; mutate: (token: T) => void };
  };
  consequence: string;
}) {
  const { revoking, setRevoking, revoke } = admin;
  return (
    <ConfirmDialog
      open={revoking !== null}
      onOpenChange={(open) => !open && setRevoking(null)}
      title={`Revoke "${revoking?.name ?? ""}"?`}
      description={`${consequence} This cannot be undone.`}
      confirmLabel="Revoke token"
      destructive
      busy={revoke.isPending}
      onConfirm={() => revoking && revoke.mutate(revoking)}
    />
  );
}
