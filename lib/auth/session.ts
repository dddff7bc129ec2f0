// Server components: who is signed in, or a redirect to the login page.
import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import type { UserRole } from "@/lib/contracts/common";
import { usesSecureCookies } from "./cookies";
import { liveSession } from "./operator-sessions";
import { authOptions } from "./options";
import { isUserRole } from "./roles";

export type SessionUser = { id: string; email: string; name: string; role: UserRole };

export async function currentUser(): Promise<SessionUser | null> {
  const session = await getServerSession(authOptions(usesSecureCookies(await headers())));
  if (!session?.user?.id || !session.sessionId) return null;
  // The cookie may outlive its session (signed out, password changed, ended in Settings).
  const live = await liveSession(session.sessionId);
  const user = live?.userId === session.user.id ? live.user : null;
  if (!user || user.disabledAt || !isUserRole(user.role)) return null;
  return { id: user.id, email: user.email, name: user.name, role: user.role };
}

export async function requireUser(): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect("/login");
  return user;
}
