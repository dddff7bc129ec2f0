// Headers every answer carries: next.config.ts sets them on what Next serves, the
// worker fast path (lib/api/fast-path.ts) on what it answers itself.
export const SECURITY_HEADERS: ReadonlyArray<{ key: string; value: string }> = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "same-origin" },
];
