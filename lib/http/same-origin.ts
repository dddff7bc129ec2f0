// Cross-site request forgery defence for cookie-authenticated changes. A browser
// attaches the session cookie to requests another page starts (a sibling port or
// subdomain is "same site", so SameSite=Lax does not stop it); it cannot forge the
// Origin and Sec-Fetch-Site headers it sends with them. Bearer-token clients are not
// exposed (a page cannot add an Authorization header without a CORS preflight,
// which this app never grants), so they are not checked.
import { ApiError } from "@/lib/errors";
import type { ApiRequest } from "./api-request";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toUpperCase());
}

/** The hosts (host[:port]) this app answers as: the configured public URL and the Host the request came in on. */
function ownHosts(req: ApiRequest): Set<string> {
  const hosts = new Set<string>();
  for (const configured of [process.env.AUTH_URL, process.env.NEXTAUTH_URL]) {
    if (!configured) continue;
    try {
      hosts.add(new URL(configured).host.toLowerCase());
    } catch {
      // lib/env.ts validates the URL at start-up; a bad one simply adds nothing
    }
  }
  const host = req.headers.get("host");
  if (host) hosts.add(host.toLowerCase());
  // Behind a proxy the Host header may name the app's address on the inside, and the
  // proxy passes the public one on. Only a proxy the operator declared
  // (SWARMDECK_TRUST_PROXY=1, as for client addresses in scripts/serve.mjs) is
  // believed; otherwise any client could name its own page's host here.
  if (process.env.SWARMDECK_TRUST_PROXY === "1") {
    const forwarded = req.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
    if (forwarded) hosts.add(forwarded.toLowerCase());
  }
  return hosts;
}

/**
 * Throws 403 unless a state-changing request comes from one of the app's own pages:
 * Sec-Fetch-Site must say "same-origin" when sent, Origin must name this app when
 * sent, and at least one of the two must be there (every current browser sends both).
 */
export function assertSameOrigin(req: ApiRequest): void {
  if (isSafeMethod(req.method)) return;
  const fetchSite = req.headers.get("sec-fetch-site");
  const origin = req.headers.get("origin");
  if (fetchSite !== null && fetchSite !== "same-origin") {
    throw crossSite(`Sec-Fetch-Site is "${fetchSite}"`);
  }
  if (origin !== null) {
    let host: string | null = null;
    try {
      host = origin === "null" ? null : new URL(origin).host.toLowerCase();
    } catch {
      host = null;
    }
    if (host === null || !ownHosts(req).has(host)) throw crossSite(`Origin ${origin} is not this app`);
  }
  if (fetchSite === null && origin === null) {
    throw crossSite("the request names neither its Origin nor Sec-Fetch-Site");
  }
}

function crossSite(reason: string): ApiError {
  return new ApiError(
    "forbidden",
    "A change made with a session cookie must come from this app's own pages; API clients send a token instead",
    { reason: "cross_site_request", why: reason },
  );
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** A session-cookie request with a body must declare it JSON: no HTML form or no-cors fetch can. */
export function assertJsonContentType(req: ApiRequest): void {
  const type = req.headers.get("content-type") ?? "";
  if (!JSON_TYPE.test(type)) {
    throw new ApiError("unsupported_media_type", "Send the body as JSON with 'Content-Type: application/json'", {
      contentType: type || null,
    });
  }
}
