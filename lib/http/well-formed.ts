// Three things valid JSON may carry that no client means to send, refused with a 400
// naming the field before any handler sees the body:
// - a lone UTF-16 surrogate ("\ud800"): no valid Unicode text; SQLite and Prisma
//   cannot store it (it used to surface as a 500);
// - a NUL character ("\u0000"): PostgreSQL text cannot hold it (SQLite can), so it is
//   refused on both stores alike rather than stored on one and a 500 on the other;
// - nesting deeper than MAX_DEPTH: JSON.parse takes 500,000 levels in a 1 MiB body,
//   but anything that walks the value recursively afterwards (JSON.stringify, zod
//   on an open-ended field) runs out of stack.
export const MAX_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** A NUL character: text PostgreSQL cannot store (lib/api/handler.ts refuses it in queries and paths too). */
export function hasNul(text: string): boolean {
  return text.includes("\u0000");
}

export type JsonProblem = { path: string; message: string };

/** The first problem in a parsed JSON value (its path, "" for the root), or null. Iterative: any depth is safe to inspect. */
export function findJsonProblem(root: unknown): JsonProblem | null {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string[] };
    if (typeof value === "string") {
      if (hasLoneSurrogate(value)) return { path: path.join("."), message: "contains a lone UTF-16 surrogate (not valid Unicode text)" };
      if (hasNul(value)) return { path: path.join("."), message: "contains a NUL character (\\u0000)" };
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= MAX_DEPTH) return { path: path.slice(0, 8).join("."), message: `is nested more than ${MAX_DEPTH} levels deep` };
    const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i] as [string, unknown];
      if (hasLoneSurrogate(key)) return { path: [...path, key].join("."), message: "has a key with a lone UTF-16 surrogate" };
      if (hasNul(key)) return { path: [...path, key].join("."), message: "has a key with a NUL character (\\u0000)" };
      stack.push({ value: item, path: [...path, key] });
    }
  }
  return null;
}
