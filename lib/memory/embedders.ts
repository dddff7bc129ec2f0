// Which embedder answers: the configured OpenAI-compatible provider when there
// is one (provider.ts), else the embedded semantic default computed locally from
// word vectors (semantic/local-embedder.ts), unless switched off with
// SWARMDECK_LOCAL_EMBEDDER=off or its data file is missing (then keyword only).
import { existsSync } from "node:fs";
import { embedTexts, providerConfig } from "./provider";
import { LOCAL_DIMS, LOCAL_MODEL, localEmbedding } from "./semantic/local-embedder";
import { WORD_VECTORS_FILE } from "./semantic/word-vectors";

export type Embedder = {
  kind: "provider" | "local";
  model: string;
  dimensions: number;
  /** Rows embedded per batch by the background embedder. */
  batch: number;
  embed(texts: string[], options?: { timeoutMs?: number; retries?: number }): Promise<Float32Array[]>;
  /**
   * One text embedded at once, in the caller's turn: the embedded default (word
   * vectors, microseconds), so a memory is embedded by the write that stores it
   * (memory-store.ts). Absent for a provider, a network call. Null: no vector.
   */
  embedNow?(text: string): Float32Array | null;
};

let localAvailable: boolean | undefined;

/** Whether the embedded default can run here (not switched off, data file present). */
export function localEmbedderEnabled(): boolean {
  if (process.env.SWARMDECK_LOCAL_EMBEDDER?.trim().toLowerCase() === "off") return false;
  localAvailable ??= existsSync(WORD_VECTORS_FILE);
  return localAvailable;
}

const LOCAL: Embedder = {
  kind: "local",
  model: LOCAL_MODEL,
  dimensions: LOCAL_DIMS,
  batch: 256,
  embedNow: (text) => localEmbedding(text),
  async embed(texts) {
    return texts.map((text) => {
      const vector = localEmbedding(text);
      if (!vector) throw new Error("the word vectors could not be read");
      return vector;
    });
  },
};

export function activeEmbedder(): Embedder | null {
  const config = providerConfig();
  if (config) return { kind: "provider", model: config.embeddingModel, dimensions: config.dimensions, batch: 64, embed: embedTexts };
  return localEmbedderEnabled() ? LOCAL : null;
}
