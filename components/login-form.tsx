"use client";

import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { type FormEvent, useState } from "react";
import { Button } from "./ui/button";
import { Card } from "./ui/card";
import { Field, Input } from "./ui/input";

export function LoginForm({ callbackUrl }: { callbackUrl: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState<{ email?: string; password?: string }>({});
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const email = String(form.get("email") ?? "");
    const password = String(form.get("password") ?? "");
    setError(null);
    // An empty field is named, not sent: "do not match" would suggest a wrong password.
    const empty = {
      ...(email.trim() ? {} : { email: "Enter your email address." }),
      ...(password ? {} : { password: "Enter your password." }),
    };
    setMissing(empty);
    if (empty.email || empty.password) {
      formElement.querySelector<HTMLInputElement>(empty.email ? "#email" : "#password")?.focus();
      return;
    }
    setBusy(true);
    const result = await signIn("credentials", { email, password, redirect: false });
    if (!result || result.error) {
      setBusy(false);
      setError(
        result?.error === "TooManyAttempts"
          ? "Too many failed sign-ins. Wait a few minutes, then try again."
          : "That email and password do not match an active account.",
      );
      return;
    }
    router.replace(callbackUrl);
    router.refresh();
  }

  return (
    <Card className="p-5">
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <Field label="Email" htmlFor="email" error={missing.email}>
          <Input
            id="email"
            name="email"
            type="email"
            autoComplete="username"
            required
            autoFocus
            aria-invalid={missing.email ? true : undefined}
            onChange={() => missing.email && setMissing((m) => ({ ...m, email: undefined }))}
          />
        </Field>
        <Field label="Password" htmlFor="password" error={missing.password}>
          <Input
            id="password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            aria-invalid={missing.password ? true : undefined}
            onChange={() => missing.password && setMissing((m) => ({ ...m, password: undefined }))}
          />
        </Field>
        {error ? (
          <p className="rounded-md border border-danger/40 bg-danger/10 px-3 py-2 text-sm text-danger" role="alert">
            {error}
          </p>
        ) : null}
        <Button type="submit" className="w-full" busy={busy}>
          Sign in
        </Button>
      </form>
    </Card>
  );
}
