// next-auth's route (/api/auth/*), with sign-in throttling in front of the
// credentials callback: a locked account or address gets a 429 in the one error
// shape, with Retry-After, before any password is hashed. The body also carries
// `url` (an error page address) because next-auth's signIn() in the browser reads it.
import "server-only";
import NextAuth from "next-auth";
import { rateLimited } from "@/lib/errors";
import { clientAddress } from "@/lib/http/client-address";
import { usesSecureCookies } from "./cookies";
import { loginLock } from "./login-throttle";
import { authOptions } from "./options";

type Context = { params: Promise<{ nextauth: string[] }> };

const nextAuth = (req: Request, context: Context) =>
  (NextAuth as unknown as (req: Request, context: Context, options: unknown) => Promise<Response>)(
    req,
    context,
    authOptions(usesSecureCookies(req)),
  );

async function lockedOut(req: Request): Promise<Response | null> {
  if (!new URL(req.url).pathname.endsWith("/callback/credentials")) return null;
  const form = await req
    .clone()
    .formData()
    .catch(() => null);
  const email = form?.get("email");
  const lock = await loginLock({ email: typeof email === "string" ? email : "", address: clientAddress(req.headers) });
  if (!lock) return null;
  const error = rateLimited(
    lock.scope === "account"
      ? "Too many failed sign-ins for this account: wait before trying again"
      : "Too many failed sign-ins from your address: wait before trying again",
    lock.retryAfterMs,
    { scope: lock.scope },
  );
  const seconds = String((error.details as { retryAfterSeconds: number }).retryAfterSeconds);
  return Response.json(
    { ...error.toBody(), url: `${new URL(req.url).origin}/login?error=TooManyAttempts` },
    { status: error.status, headers: { "retry-after": seconds } },
  );
}

export async function GET(req: Request, context: Context) {
  return nextAuth(req, context);
}

export async function POST(req: Request, context: Context) {
  return (await lockedOut(req)) ?? nextAuth(req, context);
}
