import type { UserRole } from "@/lib/contracts/common";

const RANK: Record<UserRole, number> = { viewer: 0, operator: 1, admin: 2 };

/** viewer reads; operator also writes; admin also manages users, tokens and security profiles. */
export function hasRole(role: UserRole, minRole: UserRole): boolean {
  return RANK[role] >= RANK[minRole];
}

export function isUserRole(value: string): value is UserRole {
  return value in RANK;
}
