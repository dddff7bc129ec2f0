"use client";

import { createContext, type ReactNode, useContext } from "react";
import type { UserRole } from "@/lib/contracts/common";

export type ClientUser = { id: string; email: string; name: string; role: UserRole };

const SessionUserContext = createContext<ClientUser | null>(null);

export function SessionUserProvider({ user, children }: { user: ClientUser; children: ReactNode }) {
  return <SessionUserContext.Provider value={user}>{children}</SessionUserContext.Provider>;
}

/** The signed-in operator; pages use it to hide what the role may not do (the API enforces it). */
export function useSessionUser(): ClientUser {
  const user = useContext(SessionUserContext);
  if (!user) throw new Error("useSessionUser outside the dashboard");
  return user;
}

export function useCan() {
  const { role } = useSessionUser();
  return { write: role !== "viewer", admin: role === "admin" };
}
