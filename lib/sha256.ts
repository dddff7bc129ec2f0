// SHA-256 as hex, for the hashes the hot paths take (a worker token per request, an
// audit entry per change, a memory's content per write).
import * as crypto from "node:crypto";

/**
 * crypto.hash (Node 20.12 and later) hashes in one call, without the Hash object
 * createHash makes; older Node 20s (package.json allows 20.9) take createHash.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/** The SHA-256 of `text` (UTF-8) as lowercase hex. */
export function sha256Hex(text: string): string {
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}
