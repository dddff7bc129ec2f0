// Every page request passes here (API routes authenticate themselves):
// - a Content-Security-Policy with a fresh nonce (lib/http/content-security-policy.ts);
// - a signed-out visitor goes to /login with a callbackUrl back to where they were
//   going. (The dashboard layout checks the session record and the user in the
//   database: an ended session or a disabled account stops working at once.)
import { type NextRequest, NextResponse } from "next/server";
import { getToken } from "next-auth/jwt";
import { usesSecureCookies } from "@/lib/auth/cookies";
import { authSecret } from "@/lib/config/secrets";
import { contentSecurityPolicy } from "@/lib/http/content-security-policy";

export default async function proxy(req: NextRequest) {
  const { pathname, search } = req.nextUrl;
  if (pathname !== "/login") {
    const token = await getToken({ req, secret: authSecret(), secureCookie: usesSecureCookies(req) });
    if (!token) {
      const login = new URL("/login", req.url);
      login.searchParams.set("callbackUrl", `${pathname}${search}`);
      return NextResponse.redirect(login);
    }
  }
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = contentSecurityPolicy(nonce, { dev: process.env.NODE_ENV !== "production" });
  const headers = new Headers(req.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: ["/((?!api/|_next/static|_next/image|monaco/|favicon\\.ico|icon\\.svg).*)"],
};
