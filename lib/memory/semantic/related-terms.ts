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

/**
 * Kept compact: WordNet's ~32k lines as one string per stem (the rest of its line,
 * stems separated by spaces), split only when a query asks for that stem; the
 * software vocabulary, small, as maps. A map of maps for all of WordNet held
 * ~12 MB of heap in every server for the few words a query looks up.
 */
type Related = { wordnet: Map<string, string>; dev: Map<string, Map<string, number>> };
let loaded: Related | undefined;

/** Stems of a group entry ("end-to-end" -> end, to, end: only one-word entries are linked). */
function entryStem(entry: string): string | null {
  const parts = words(entry);
  return parts.length === 1 ? stem(parts[0]!) : null;
}

export function loadRelated(file = SYNONYMS_FILE): Related {
  const wordnet = new Map<string, string>();
  if (existsSync(file)) {
    // Already stems (scripts/build-semantic-data.mjs): loading is a split.
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const space = line.indexOf(" ");
      if (space <= 0) continue;
      const from = line.slice(0, space);
      const others = line.slice(space + 1);
      const before = wordnet.get(from);
      wordnet.set(from, before === undefined ? others : `${before} ${others}`);
    }
  }
  const dev = new Map<string, Map<string, number>>();
  for (const group of DEV_TERM_GROUPS) {
    const stems = [
      ...new Set(
        group
          .split(" ")
          .map(entryStem)
          .filter((s): s is string => s !== null),
      ),
    ];
    for (const a of stems) {
      for (const b of stems) {
        if (a === b) continue;
        let map = dev.get(a);
        if (!map) {
          map = new Map();
          dev.set(a, map);
        }
        map.set(b, DEV_TERM_CLOSENESS);
      }
    }
  }
  return { wordnet, dev };
}

/** Stems related to `stemmed` (never itself), with closeness 0..1. */
export function relatedStems(stemmed: string): ReadonlyMap<string, number> {
  loaded ??= loadRelated();
  const synonyms = loaded.wordnet.get(stemmed);
  const dev = loaded.dev.get(stemmed);
  if (synonyms === undefined) return dev ?? EMPTY;
  const related = new Map<string, number>();
  for (const other of synonyms.split(" ")) if (other && other !== stemmed) related.set(other, WORDNET_CLOSENESS);
  // The software vocabulary is the closer of the two where both link a pair.
  if (dev) for (const [other, closeness] of dev) related.set(other, Math.max(closeness, related.get(other) ?? 0));
  return related;
}
const EMPTY: ReadonlyMap<string, number> = new Map();
