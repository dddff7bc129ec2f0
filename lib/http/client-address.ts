// The address a request came from, for per-address limits. The production server
// (scripts/serve.mjs) writes it into this header from the socket (or, with
// SWARMDECK_TRUST_PROXY=1, from the nearest proxy's X-Forwarded-For), replacing
// whatever a client sent under that name. `npm run dev` has no such server: every
// request then counts as one address.
export const CLIENT_ADDRESS_HEADER = "x-swarmdeck-client-address";

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export function clientAddress(headers: HeaderBag): string {
  const value = headers instanceof Headers ? headers.get(CLIENT_ADDRESS_HEADER) : headers[CLIENT_ADDRESS_HEADER];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() || "unknown";
}
