// Server components: who is signed in, or a redirect to the login page.
import "server-only";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import type { UserRole } from "@/lib/contracts/common";
import { db } from "@/lib/db";
import { authOptions } from "./options";
import { isUserRole } from "./roles";

export type SessionUser = { id: string; email: string; name: string; role: UserRole };

export async function currentUser(): Promise<SessionUser | null> {
  const session = await getServerSession(authOptions);
  if (!session?.user?.id) return null;
  const user = await db.user.findUnique({ where: { id: session.user.id } });
  if (!user || user.disabledAt || !isUserRole(user.role)) return null;
  return { id: user.id, email: user.email, name: user.name, role: user.role };
}

export async function requireUser(): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect("/login");
  return user;
}
