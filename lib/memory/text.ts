// Text handling shared by keyword search, scoring and the fake embedder: the
// same tokenizer and Porter stemmer as the FTS5 index (`porter unicode61`), a
// stop-word list, and the sanitizer that turns any user text into a safe FTS5
// MATCH expression.
import { stemmer } from "stemmer";

export const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could did do does doing for from had has have how i if in into is it its " +
    "me my no not of on or our should so than that the their them then there these they this to too us was we were " +
    "what when where which while who why will with would you your about after before also any all just more most " +
    "only other over same some such via up down out get got use used using"
  ).split(" "),
);

const NON_ASCII = /[^\p{ASCII}]/u;

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** Lower-cased words as unicode61 sees them (letters and digits; diacritics folded). */
export function words(text: string): string[] {
  // Plain ASCII (most text) has nothing to fold: skipping NFKD halves the cost of indexing it.
  const folded = NON_ASCII.test(text) ? text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "") : text;
  return folded.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Porter stem of one lower-case word (what FTS5's porter tokenizer stores). */
export function stem(word: string): string {
  return word.length > 2 ? stemmer(word) : word;
}

/** Distinct stems of the meaningful words of a query (stop words dropped unless nothing else is left). */
export function queryStems(text: string): string[] {
  const all = words(text).slice(0, 64);
  const meaningful = all.filter((word) => !STOP_WORDS.has(word));
  return [...new Set((meaningful.length > 0 ? meaningful : all).map(stem))];
}

/** Every stem of a text, as a set. */
export function stemSet(text: string): Set<string> {
  return new Set(words(text).map(stem));
}

/**
 * A safe FTS5 MATCH expression for arbitrary user text: each meaningful word is
 * quoted as a string (so no operator, column filter or unbalanced quote in the
 * user's text can reach FTS5 syntax) and the words are OR-ed, so a memory that
 * holds some of the words still matches; BM25 ranks those holding more of them
 * higher. Returns null when the text holds no searchable word.
 */
export function toFtsQuery(text: string, join: "OR" | "AND" = "OR"): string | null {
  const terms = [...new Set(words(text).filter((word) => !STOP_WORDS.has(word)))].slice(0, 32);
  const chosen = terms.length > 0 ? terms : [...new Set(words(text))].slice(0, 32);
  if (chosen.length === 0) return null;
  return chosen.map((term) => `"${term.replace(/"/g, '""')}"`).join(` ${join} `);
}

// Stemming every word of every candidate would dominate a search; words repeat
// across memories, so their stems are memoised (bounded).
const stemMemo = new Map<string, string>();
export function cachedStem(word: string): string {
  let value = stemMemo.get(word);
  if (value === undefined) {
    if (stemMemo.size > 100_000) stemMemo.clear();
    value = stem(word);
    stemMemo.set(word, value);
  }
  return value;
}

/**
 * The share of the query's meaningful stems that `text` holds. A long query (a
 * task description) counts as fully covered once 2·√n of its n stems match, so
 * a focused memory can still score high against a long prompt.
 */
export function coverage(stems: string[], text: string): number {
  if (stems.length === 0) return 0;
  const present = new Set<string>();
  for (const word of new Set(words(text))) present.add(cachedStem(word));
  let matched = 0;
  for (const s of stems) if (present.has(s)) matched++;
  const needed = Math.min(stems.length, Math.max(4, Math.ceil(2 * Math.sqrt(stems.length))));
  return Math.min(1, matched / needed);
}

/** FNV-1a of a string with a seed: a fixed pseudo-random 32-bit number per (text, seed). */
export function fnv1a(text: string, seed: number): number {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}
