import bcrypt from "bcryptjs";

export { MIN_PASSWORD_LENGTH } from "@/lib/contracts/users";

const COST = 12;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}
