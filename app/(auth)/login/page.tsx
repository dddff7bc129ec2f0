import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/login-form";
import { safeCallbackPath } from "@/lib/auth/callback-url";
import { currentUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string | string[] }> }) {
  if (await currentUser()) redirect("/");
  const { callbackUrl } = await searchParams;
  // Only a path on this app: never bounce a signed-in operator to another origin.
  const target = safeCallbackPath(typeof callbackUrl === "string" ? callbackUrl : undefined);
  return (
    <div className="grid min-h-screen place-items-center px-4">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center gap-2">
          <div className="grid size-8 place-items-center rounded-md bg-accent font-bold text-accent-fg">S</div>
          <div>
            <h1 className="text-lg font-semibold tracking-tight">Swarmdeck</h1>
            <p className="text-xs text-fg-muted">Control plane for self-improving agent swarms</p>
          </div>
        </div>
        <LoginForm callbackUrl={target} />
        <p className="mt-4 text-xs text-fg-muted">
          First start? The admin password was printed by <code>npm start</code> and saved in <code>data/admin-password.txt</code>.
        </p>
      </div>
    </div>
  );
}
