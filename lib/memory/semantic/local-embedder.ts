// The embedded semantic default: a text's vector is the SIF-weighted average of
// its words' vectors (Arora et al. 2017: weight a / (a + p(w)), p from the
// word's frequency rank by Zipf's law, so "the", "error" or "test" count for
// little and "lockfile" or "hydration" for a lot). Words the vocabulary lacks
// (identifiers, error codes, product names) get a fixed pseudo-random direction
// of their own in the padding dimensions, so two texts sharing a rare token
// still come closer. 128 dimensions (100 + 28 of padding): the vector index
// needs a multiple of 32.
import { fnv1a, words } from "../text";
import { type WordVectors, wordVectors } from "./word-vectors";

export const LOCAL_DIMS = 128;
export const LOCAL_MODEL = "local:wink-sg100-sif-v1";

const SIF_A = 1e-3;
/** Zipf normaliser for a ~341k-word vocabulary: p(rank r) = 1 / ((r + 1) * H). */
const HARMONIC = Math.log(341_479) + 0.5772;
/** Weight of a word the vocabulary lacks: treated as rarer than any known word. */
const OOV_WEIGHT = 1;

function sifWeight(rank: number): number {
  const p = 1 / ((rank + 1) * HARMONIC);
  return SIF_A / (SIF_A + p);
}

/** Adds `weight` x a fixed pseudo-random unit direction for an unknown word. */
function addUnknown(vector: Float32Array, word: string, weight: number) {
  const spread = 6;
  const share = weight / Math.sqrt(spread);
  for (let k = 0; k < spread; k++) {
    const h = fnv1a(word, k);
    vector[h % LOCAL_DIMS]! += h & 0x100 ? share : -share;
  }
}

/** The vector of a text (unit length; all zeros when it has no word), or null without word vectors. */
export function localEmbedding(text: string, vectors: WordVectors | null = wordVectors()): Float32Array | null {
  if (!vectors) return null;
  const vector = new Float32Array(LOCAL_DIMS);
  const counts = new Map<string, number>();
  for (const word of words(text).slice(0, 2000)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const { dims, codes, indexOf } = vectors;
  for (const [word, count] of counts) {
    // Repeats count, but sub-linearly: a long note saying "test" ten times is not ten times about testing.
    const times = 1 + Math.log(count);
    const rank = indexOf.get(word);
    if (rank === undefined) {
      if (word.length > 1 && !/^\d+$/.test(word)) addUnknown(vector, word, OOV_WEIGHT * times);
      continue;
    }
    const weight = (sifWeight(rank) * times) / 127;
    const base = rank * dims;
    for (let d = 0; d < dims; d++) vector[d]! += codes[base + d]! * weight;
  }
  let norm = 0;
  for (let d = 0; d < LOCAL_DIMS; d++) norm += vector[d]! * vector[d]!;
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < LOCAL_DIMS; d++) vector[d]! *= inv;
  }
  return vector;
}
