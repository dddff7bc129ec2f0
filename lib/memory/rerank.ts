// Keyword relevance that reads details (the "coverage" of scoring.ts): the
// weighted share of the query's terms a memory holds, where
//
// - a term weighs by its rarity (SIF weight from the word's frequency rank: "the
//   build failed" words count little, "lockfile" or "hydration" a lot), and a
//   detail (a version, an error code, an identifier: digits, "_", ".", or a
//   CODE in capitals) weighs double, so the near-miss lacking the detail the
//   query names loses to the lesson holding it;
// - the name is a field of its own: a term in the name counts fully, one only in
//   the content a little less;
// - a term the memory lacks can still count partly through a related word
//   (semantic/related-terms.ts: software vocabulary and WordNet synonyms) or,
//   failing that, a word whose vector is close (semantic/word-vectors.ts);
// - query words that appear next to each other in the memory (a phrase) lift it.
//
// Everything here is per candidate (a few dozen per search) and allocation-light;
// with no word vectors it still weighs terms, fields, details and phrases.

import { relatedStems } from "./semantic/related-terms";
import { type WordVectors, wordVectors } from "./semantic/word-vectors";
import { cachedStem, STOP_WORDS, words } from "./text";

const CONTENT_ONLY = 0.85;
const RELATED = 0.8;
const VECTOR_FLOOR = 0.6;
const VECTOR_CREDIT = 0.5;
const PHRASE_SHARE = 0.12;
const SIF_A = 1e-3;
const HARMONIC = Math.log(341_479) + 0.5772;

type Term = { stem: string; weight: number; vector: number; related: ReadonlyMap<string, number> };
export type PreparedQuery = { terms: Term[]; denominator: number; pairs: string[]; semantic: boolean };

/** Whether a raw query token is a detail: a version, an error code or an identifier. */
export function isDetail(token: string): boolean {
  return /\d/.test(token) || /[_.]/.test(token) || /^[A-Z][A-Z0-9_]{2,}$/.test(token);
}

function rarity(word: string, vectors: WordVectors | null): { weight: number; vector: number } {
  const rank = vectors?.indexOf.get(word);
  if (rank === undefined) return { weight: 1, vector: -1 };
  const p = 1 / ((rank + 1) * HARMONIC);
  return { weight: Math.max(0.1, SIF_A / (SIF_A + p)), vector: rank };
}

/** Everything about a query the scoring of each candidate needs, computed once per search. */
export function prepareQuery(query: string, options: { semantic: boolean }): PreparedQuery {
  const vectors = options.semantic ? wordVectors() : null;
  const details = new Set(
    (query.match(/[\p{L}\p{N}][\p{L}\p{N}_.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? []).filter(isDetail).flatMap((token) => words(token)),
  );
  const all = words(query).slice(0, 64);
  const meaningful = all.filter((word) => !STOP_WORDS.has(word));
  const chosen = meaningful.length > 0 ? meaningful : all;
  const seen = new Map<string, Term>();
  for (const word of chosen) {
    const stemmed = cachedStem(word);
    if (seen.has(stemmed)) continue;
    const { weight, vector } = rarity(word, vectors);
    seen.set(stemmed, {
      stem: stemmed,
      weight: details.has(word) ? 2 * Math.max(weight, 0.5) : weight,
      vector: vectors ? vector : -1,
      related: options.semantic ? relatedStems(stemmed) : EMPTY,
    });
  }
  const terms = [...seen.values()];
  const total = terms.reduce((sum, term) => sum + term.weight, 0);
  // A long query (a task description) is fully covered once 2·√n of its n terms' weight is there.
  const n = terms.length;
  const denominator = total * Math.min(1, Math.max(4, 2 * Math.sqrt(n)) / Math.max(1, n));
  const pairs: string[] = [];
  const stems = chosen.map(cachedStem);
  for (let i = 1; i < stems.length; i++) if (stems[i] !== stems[i - 1]) pairs.push(`${stems[i - 1]} ${stems[i]}`);
  return { terms, denominator, pairs, semantic: options.semantic && vectors !== null };
}
const EMPTY: ReadonlyMap<string, number> = new Map();

function dot(codes: Int8Array, dims: number, a: number, b: number): number {
  let sum = 0;
  const x = a * dims;
  const y = b * dims;
  for (let d = 0; d < dims; d++) sum += codes[x + d]! * codes[y + d]!;
  return sum / 16129;
}

/** 0..1: how much of the query's meaning the memory holds (see the header). */
export function relevance(query: PreparedQuery, name: string, content: string): number {
  if (query.terms.length === 0 || query.denominator <= 0) return 0;
  const nameStems = new Set(words(name).map(cachedStem));
  const contentWords = words(content);
  const sequence = contentWords.map(cachedStem);
  const contentStems = new Set(sequence);
  const vectors = query.semantic ? wordVectors() : null;
  let docVectors: number[] | null = null;
  let earned = 0;
  for (const term of query.terms) {
    let credit = nameStems.has(term.stem) ? 1 : contentStems.has(term.stem) ? CONTENT_ONLY : 0;
    if (credit < 1 && term.related.size > 0) {
      for (const [other, closeness] of term.related) {
        const here = nameStems.has(other) ? 1 : contentStems.has(other) ? CONTENT_ONLY : 0;
        credit = Math.max(credit, here * closeness * RELATED);
      }
    }
    if (credit === 0 && vectors && term.vector >= 0) {
      docVectors ??= [...new Set([...words(name), ...contentWords])]
        .filter((word) => !STOP_WORDS.has(word))
        .map((word) => vectors.indexOf.get(word) ?? -1)
        .filter((index) => index >= 0);
      let best = 0;
      for (const index of docVectors) best = Math.max(best, dot(vectors.codes, vectors.dims, term.vector, index));
      if (best > VECTOR_FLOOR) credit = ((best - VECTOR_FLOOR) / (1 - VECTOR_FLOOR)) * VECTOR_CREDIT;
    }
    earned += credit * term.weight;
  }
  let phrases = 0;
  if (query.pairs.length > 0) {
    const adjacent = new Set<string>();
    for (let i = 1; i < sequence.length; i++) adjacent.add(`${sequence[i - 1]} ${sequence[i]}`);
    for (const pair of query.pairs) if (adjacent.has(pair)) phrases++;
  }
  const coverage = Math.min(1, earned / query.denominator);
  if (query.pairs.length === 0) return coverage;
  return coverage * (1 - PHRASE_SHARE + (PHRASE_SHARE * phrases) / query.pairs.length);
}

/** Extra words for the keyword candidates: the closest related stems of each query term (bounded). */
export function expansionTerms(query: PreparedQuery, perTerm = 4, total = 32): string[] {
  const out = new Set<string>();
  for (const term of query.terms) {
    const ranked = [...term.related].sort((a, b) => b[1] - a[1]).slice(0, perTerm);
    for (const [other] of ranked) if (out.size < total) out.add(other);
  }
  return [...out];
}
