// The embedding and chat provider: any OpenAI-compatible endpoint through the
// `openai` SDK, configured by OPENAI_API_KEY and/or OPENAI_BASE_URL. With
// neither set there is no provider and memory runs on keyword search alone.
import "server-only";
import OpenAI from "openai";
import { fromBytes } from "./vector-index";

export type ProviderConfig = {
  embeddingModel: string;
  dimensions: number;
  summaryModel: string | null;
  queryTimeoutMs: number;
};

let cached: { key: string; client: OpenAI } | null = null;

export function providerConfig(): ProviderConfig | null {
  const key = process.env.OPENAI_API_KEY?.trim();
  const baseURL = process.env.OPENAI_BASE_URL?.trim();
  if (!key && !baseURL) return null;
  const dims = Number(process.env.EMBEDDING_DIMENSIONS ?? 512);
  return {
    embeddingModel: process.env.EMBEDDING_MODEL?.trim() || "text-embedding-3-small",
    dimensions: Number.isInteger(dims) && dims >= 32 && dims % 32 === 0 ? dims : 512,
    summaryModel: process.env.SUMMARY_MODEL?.trim() || null,
    queryTimeoutMs: Number(process.env.SWARMDECK_QUERY_EMBED_TIMEOUT_MS ?? 1500) || 1500,
  };
}

function client(): OpenAI {
  const apiKey = process.env.OPENAI_API_KEY?.trim() || "not-needed";
  const baseURL = process.env.OPENAI_BASE_URL?.trim() || undefined;
  const key = `${apiKey}|${baseURL}`;
  if (!cached || cached.key !== key) cached = { key, client: new OpenAI({ apiKey, baseURL, maxRetries: 0 }) };
  return cached.client;
}

function decodeEmbedding(embedding: unknown): Float32Array {
  if (typeof embedding === "string") {
    const bytes = Buffer.from(embedding, "base64");
    if (bytes.byteLength % 4 !== 0) throw new Error("the provider answered an embedding that is not float32 data");
    return fromBytes(bytes);
  }
  if (Array.isArray(embedding)) return Float32Array.from(embedding as number[]);
  throw new Error("the provider answered an embedding that is neither base64 nor an array");
}

/** Embeds texts (one request); throws on any failure or a wrong-sized answer. */
export async function embedTexts(texts: string[], options: { timeoutMs?: number; retries?: number } = {}): Promise<Float32Array[]> {
  const config = providerConfig();
  if (!config) throw new Error("no embedding provider is configured");
  // base64 (little-endian float32, as OpenAI sends it) is a quarter of the JSON
  // and decodes straight into a typed array, where a JSON float array parses into
  // 512 heap numbers per vector; a server that ignores the option and sends
  // arrays is read too.
  const response = await client().embeddings.create(
    { model: config.embeddingModel, input: texts, dimensions: config.dimensions, encoding_format: "base64" },
    { timeout: options.timeoutMs ?? 30_000, maxRetries: options.retries ?? 0 },
  );
  const vectors = [...response.data].sort((a, b) => a.index - b.index).map((item) => decodeEmbedding(item.embedding));
  if (vectors.length !== texts.length) throw new Error(`the provider answered ${vectors.length} embeddings for ${texts.length} texts`);
  for (const vector of vectors) {
    if (vector.length !== config.dimensions) throw new Error(`the provider answered ${vector.length} dimensions, not ${config.dimensions}`);
  }
  return vectors;
}

/** One chat completion (summaries, consolidation); null when no summary model is configured. */
export async function chat(args: { system: string; user: string; timeoutMs?: number }): Promise<string | null> {
  const config = providerConfig();
  if (!config?.summaryModel) return null;
  const response = await client().chat.completions.create(
    {
      model: config.summaryModel,
      messages: [
        { role: "system", content: args.system },
        { role: "user", content: args.user },
      ],
      temperature: 0,
    },
    { timeout: args.timeoutMs ?? 60_000, maxRetries: 1 },
  );
  return response.choices[0]?.message?.content?.trim() ?? null;
}
