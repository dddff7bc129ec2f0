// Query expansion: the words related to a query word, by stem, with how close
// they are. Two sources: the software vocabulary of dev-terms.ts (0.85) and the
// one-word synonyms of the word's most common WordNet senses
// (lib/generated/synonyms.txt, stems, built at install by
// scripts/build-semantic-data.mjs; 0.7). Loaded once, lazily (or warmed by the
// memory jobs at start).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { stem, words } from "../text";
import { DEV_TERM_GROUPS } from "./dev-terms";

export const DEV_TERM_CLOSENESS = 0.85;
export const WORDNET_CLOSENESS = 0.7;
export const SYNONYMS_FILE = path.join(/*turbopackIgnore: true*/ process.cwd(), "lib", "generated", "synonyms.txt");

type Related = Map<string, Map<string, number>>;
let loaded: Related | undefined;

function link(related: Related, a: string, b: string, closeness: number) {
  if (a === b) return;
  let map = related.get(a);
  if (!map) {
    map = new Map();
    related.set(a, map);
  }
  if ((map.get(b) ?? 0) < closeness) map.set(b, closeness);
}

/** Stems of a group entry ("end-to-end" -> end, to, end: only one-word entries are linked). */
function entryStem(entry: string): string | null {
  const parts = words(entry);
  return parts.length === 1 ? stem(parts[0]!) : null;
}

export function loadRelated(file = SYNONYMS_FILE): Related {
  const related: Related = new Map();
  if (existsSync(file)) {
    // Already stems (scripts/build-semantic-data.mjs): loading is a split.
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const [from, ...others] = line.split(" ");
      if (!from) continue;
      for (const to of others) link(related, from, to, WORDNET_CLOSENESS);
    }
  }
  for (const group of DEV_TERM_GROUPS) {
    const stems = [
      ...new Set(
        group
          .split(" ")
          .map(entryStem)
          .filter((s): s is string => s !== null),
      ),
    ];
    for (const a of stems) for (const b of stems) link(related, a, b, DEV_TERM_CLOSENESS);
  }
  return related;
}

/** Stems related to `stemmed` (never itself), with closeness 0..1. */
export function relatedStems(stemmed: string): ReadonlyMap<string, number> {
  loaded ??= loadRelated();
  return loaded.get(stemmed) ?? EMPTY;
}
const EMPTY: ReadonlyMap<string, number> = new Map();
