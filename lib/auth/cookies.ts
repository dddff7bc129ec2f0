// Whether the session cookie is Secure (and named __Secure-next-auth.session-token):
// whenever the app is reached over HTTPS, directly or through a TLS-terminating
// proxy. The public URL (AUTH_URL / NEXTAUTH_URL) says so when it is https; so does
// the proxy's X-Forwarded-Proto. Writing and reading the cookie ask the same question.
type HeaderSource = Pick<Request, "headers" | "url"> | Headers;

export function usesSecureCookies(source: HeaderSource): boolean {
  for (const configured of [process.env.AUTH_URL, process.env.NEXTAUTH_URL]) {
    if (configured?.toLowerCase().startsWith("https://")) return true;
  }
  const headers = source instanceof Headers ? source : source.headers;
  const forwarded = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === "https";
  return !(source instanceof Headers) && source.url.startsWith("https://");
}
