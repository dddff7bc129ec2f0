// next-auth: email + password against the User table; the JWT cookie names a
// server-side session record (lib/auth/operator-sessions.ts) that every request checks.
import "server-only";
import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { authSecret } from "@/lib/config/secrets";
import { db } from "@/lib/db";
import { clientAddress } from "@/lib/http/client-address";
import { safeCallbackPath } from "./callback-url";
import { loginLock, recordLoginFailure, recordLoginSuccess } from "./login-throttle";
import { endSession, SESSION_MAX_AGE_SECONDS, startSession } from "./operator-sessions";
import { hashPassword, isLegacyHash, verifyAgainstDecoy, verifyPassword } from "./passwords";

const credentialsSchema = z.object({ email: z.string().trim().toLowerCase().email(), password: z.string().min(1).max(512) });

/** `secure`: whether this request came over HTTPS (lib/auth/cookies.ts), which decides the cookie's flags and name. */
export const authOptions = (secure: boolean): AuthOptions => ({
  secret: authSecret(),
  useSecureCookies: secure,
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  // Its error page too: next-auth's own (/api/auth/error) is an HTML page, a 500 for ?error=Configuration.
  pages: { signIn: "/login", error: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(raw, req) {
        const parsed = credentialsSchema.safeParse(raw);
        if (!parsed.success) return null;
        const { email, password } = parsed.data;
        const attempt = { email, address: clientAddress(req.headers ?? {}) };
        // The route (lib/auth/auth-route.ts) answers 429 before this; parallel guesses that got past it stop here.
        if (await loginLock(attempt)) throw new Error("TooManyAttempts");
        const found = await db.user.findUnique({ where: { email } });
        const active = found && !found.disabledAt ? found : null;
        const valid = active ? await verifyPassword(password, active.passwordHash) : await verifyAgainstDecoy(password);
        if (!active || !valid) {
          await recordLoginFailure(attempt);
          return null;
        }
        await recordLoginSuccess(attempt);
        const rehashed = isLegacyHash(active.passwordHash) ? await hashPassword(password) : undefined;
        await db.user.update({ where: { id: active.id }, data: { lastLoginAt: new Date(), passwordHash: rehashed } });
        const userAgent = headerValue(req.headers, "user-agent");
        const sid = await startSession({ userId: active.id, userAgent, address: attempt.address });
        return { id: active.id, email: active.email, name: active.name || active.email, role: active.role, sid };
      },
    }),
  ],
  callbacks: {
    // next-auth's own redirects (sign-in and sign-out with redirect: true) stay on this app too.
    redirect({ url, baseUrl }) {
      const base = new URL(baseUrl);
      const target = url.startsWith(base.origin) ? url.slice(base.origin.length) || "/" : url;
      return `${base.origin}${safeCallbackPath(target)}`;
    },
    jwt({ token, user }) {
      if (user) {
        token.sub = user.id;
        token.role = (user as { role?: string }).role;
        token.sid = (user as { sid?: string }).sid;
      }
      return token;
    },
    session({ session, token }) {
      if (session.user) {
        session.user.id = token.sub ?? "";
        session.user.role = typeof token.role === "string" ? token.role : "viewer";
      }
      session.sessionId = typeof token.sid === "string" ? token.sid : "";
      return session;
    },
  },
  events: {
    // Sign-out ends the server-side record: the cookie, if replayed, no longer works.
    async signOut({ token }) {
      if (typeof token?.sid === "string") await endSession({ id: token.sid, reason: "signed_out" });
    },
  },
});

function headerValue(headers: Record<string, unknown> | undefined, name: string): string {
  const value = headers?.[name];
  return typeof value === "string" ? value : Array.isArray(value) && typeof value[0] === "string" ? value[0] : "";
}
