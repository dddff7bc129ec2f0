// next-auth's route (/api/auth/*), with sign-in throttling in front of the
// credentials callback: a locked account or address gets a 429 in the one error
// shape, with Retry-After, before any password is hashed. The body also carries
// `url` (an error page address) because next-auth's signIn() in the browser reads it.
import "server-only";
import NextAuth from "next-auth";
import { ApiError, errorForStatus, errorResponse, rateLimited } from "@/lib/errors";
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

/**
 * next-auth's actions (v4) and the methods each takes. Anything else it answered itself with a
 * plain-text 400 ("This action with HTTP GET is not supported"), and a GET of the credentials
 * callback with a 500: they get the API's one error shape here, 404 or 405 like any other path.
 * (`verify-request` is the email provider's page; there is no email provider.)
 */
const ACTIONS: Record<string, readonly ("GET" | "POST")[]> = {
  csrf: ["GET"],
  providers: ["GET"],
  // next-auth's error page: a redirect to the sign-in page (pages.error in lib/auth/options.ts).
  error: ["GET"],
  session: ["GET", "POST"],
  signin: ["GET", "POST"],
  signout: ["GET", "POST"],
  callback: ["POST"],
  _log: ["POST"],
};
/** The one provider: a path naming another (`/callback/github`) names nothing. */
const PROVIDERS = new Set(["credentials"]);

/** 404 / 405 in the error shape for what next-auth has no answer for; null for what it serves. */
function unserved(req: Request): Response | null {
  const [action = "", provider, ...rest] = new URL(req.url).pathname.replace(/^\/api\/auth\/?/, "").split("/");
  const methods = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
  const named = provider === undefined || (PROVIDERS.has(provider) && rest.length === 0 && (action === "signin" || action === "callback"));
  if (!methods || !named) return errorResponse(new ApiError("not_found", "There is nothing at this path"));
  const method = req.method === "HEAD" ? "GET" : req.method;
  if (!methods.includes(method as "GET" | "POST")) {
    return errorResponse(new ApiError("method_not_allowed", "This path does not take that method", { allow: methods.join(", ") }));
  }
  return null;
}

/** An error next-auth answered in plain text or HTML: the same status, in the error shape. */
function shaped(response: Response): Response {
  if (response.status < 400 || (response.headers.get("content-type") ?? "").includes("json")) return response;
  const error = errorForStatus(response.status);
  console.error(`[swarmdeck] next-auth answered ${response.status} (${error.code})`);
  return new Response(JSON.stringify(error.toBody()), { status: response.status, headers: { "content-type": "application/json" } });
}

export async function GET(req: Request, context: Context) {
  return unserved(req) ?? shaped(await nextAuth(req, context));
}

export async function POST(req: Request, context: Context) {
  return unserved(req) ?? (await lockedOut(req)) ?? shaped(await nextAuth(req, context));
}
