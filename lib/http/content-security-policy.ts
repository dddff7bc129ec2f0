// The Content-Security-Policy of every page (set by proxy.ts with a fresh nonce per
// request; Next.js puts the nonce on its own scripts, next-themes on its inline one).
// - script-src: only scripts carrying the nonce, and what they load ('strict-dynamic':
//   Monaco's loader adds /monaco/vs/* script elements at run time);
// - worker-src: Monaco's language workers come from /monaco or from blob: URLs;
// - style-src 'unsafe-inline': Monaco, Recharts and sonner set inline styles (styles
//   cannot run code; scripts are what the nonce protects);
// - no plugins, no framing, no foreign form targets or base URLs, connections to this app only.
export function contentSecurityPolicy(nonce: string, { dev = false } = {}): string {
  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    "script-src": ["'self'", `'nonce-${nonce}'`, "'strict-dynamic'", ...(dev ? ["'unsafe-eval'"] : [])],
    "worker-src": ["'self'", "blob:"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(" ")}`)
    .join("; ");
}
