// Where to send an operator after signing in. Only a path on this app is kept, and
// it is judged the way the browser will read it: parsed as a URL against our own
// origin (a backslash counts as a slash, tabs and newlines vanish), never by string
// prefix. `/\evil.example/`, `/%09/evil.example/` and `//evil.example` all leave
// the origin when parsed, so they become "/".
const BASE = "http://swarmdeck.invalid";

export function safeCallbackPath(raw: string | null | undefined): string {
  if (!raw) return "/";
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return "/";
  }
  if (url.origin !== BASE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  // "/.//evil.example" parses to the path "//evil.example", which a browser would
  // read again as another host.
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return "/";
  return path;
}
