// A long-tailed synthetic corpus for keyword search at scale: memories written
// from a 5,000-word vocabulary drawn with a Zipf skew (word r has weight 1/r), and
// queries of three words taken from a stored memory, so they are mostly the
// common words found in a large share of the corpus. Friendlier corpora (a few
// templated phrases) hide what a search costs when query words are everywhere.
// Deterministic for a seed. Used by bench:memory and the keyword index tests.
import { isStopWord } from "../../lib/memory/text";

export type CorpusOptions = { vocabulary?: number; seed?: number; skew?: number };

export function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ONSETS = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "cl", "dr", "gr", "pl", "st", "tr"];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ou"];
const CODAS = ["", "", "n", "r", "l", "x", "m", "k"];

/** `size` distinct made-up words (3..4 syllables, lower-case letters; none is an English stop word). */
function makeVocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const syllables = 2 + Math.floor(random() * 2);
    let word = "";
    for (let s = 0; s < syllables; s++) {
      word += ONSETS[Math.floor(random() * ONSETS.length)]! + VOWELS[Math.floor(random() * VOWELS.length)]!;
    }
    word += CODAS[Math.floor(random() * CODAS.length)]!;
    if (!isStopWord(word)) words.add(word);
  }
  return [...words];
}

export function zipfCorpus(options: CorpusOptions = {}) {
  const size = options.vocabulary ?? 5000;
  const skew = options.skew ?? 1;
  const vocabulary = makeVocabulary(size, rng(options.seed ?? 1));
  // Cumulative weights for sampling word r with probability ∝ 1/r^skew.
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let r = 0; r < size; r++) {
    total += 1 / (r + 1) ** skew;
    cumulative[r] = total;
  }
  const word = (random: () => number) => {
    const target = random() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo]!;
  };
  const sentence = (random: () => number, length: number) => Array.from({ length }, () => word(random)).join(" ");

  /** Memory `i` of the corpus: a 3..6-word name and 20..60 words of content. */
  function memory(i: number): { name: string; content: string } {
    const random = rng(0x9e3779b1 ^ (i * 2654435761));
    const name = sentence(random, 3 + Math.floor(random() * 4));
    const content = `${sentence(random, 20 + Math.floor(random() * 41))}.`;
    return { name, content };
  }

  /** A query of three distinct words of a stored memory (content words, so mostly the common ones). */
  function query(random: () => number, count: number): string {
    const { content } = memory(Math.floor(random() * count));
    const words = content.replace(/\.$/, "").split(" ");
    const chosen = new Set<string>();
    for (let tries = 0; chosen.size < 3 && tries < 100; tries++) chosen.add(words[Math.floor(random() * words.length)]!);
    return [...chosen].join(" ");
  }

  return { vocabulary, memory, query };
}
