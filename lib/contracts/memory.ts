// Memory: the worker protocol's memory calls and the operator memory API.
import { z } from "zod";
import { oneLine } from "./common";

export const MEMORY_SCOPES = ["agent", "swarm"] as const;
export const memoryScopeSchema = z.enum(MEMORY_SCOPES);
export type MemoryScope = z.infer<typeof memoryScopeSchema>;

export const MEMORY_SOURCES = [
  "manual",
  "file_index",
  "session_summary",
  "task_completion",
  "task_failure",
  "lead_feedback",
  "reflection",
] as const;
export const memorySourceSchema = z.enum(MEMORY_SOURCES);
export type MemorySource = z.infer<typeof memorySourceSchema>;

export const LEARNING_CATEGORIES = ["mistake-pattern", "best-practice", "codebase-knowledge", "preference"] as const;
export const learningCategorySchema = z.enum(LEARNING_CATEGORIES);

/** Most text one memory call stores (it is chunked into about 2,000-character pieces). */
export const MAX_MEMORY_CONTENT_CHARS = 256 * 1024;

export const workerCreateMemoryBodySchema = z.strictObject({
  name: oneLine(z.string().trim().min(1).max(200)),
  content: z.string().min(1).max(MAX_MEMORY_CONTENT_CHARS),
  scope: memoryScopeSchema.default("agent"),
  source: memorySourceSchema.default("manual"),
  taskId: z.string().max(64).optional(),
  /** For file_index: the workspace-relative path, so a re-index replaces the old chunks. */
  path: z.string().max(512).optional(),
});
export const createMemoryResponseSchema = z.object({ ids: z.array(z.number()) });

export const searchMemoryBodySchema = z.strictObject({
  query: z.string().trim().min(1).max(2000),
  limit: z.number().int().min(1).max(50).default(10),
  scope: z.enum(["agent", "swarm", "all"]).default("all"),
});

export const memoryResultSchema = z.object({
  id: z.number(),
  name: z.string(),
  content: z.string(),
  /** 0..1 on every search mode; see lib/memory/README (score scale). */
  score: z.number(),
  scope: memoryScopeSchema,
  source: memorySourceSchema,
  agentId: z.string().nullable(),
  createdAt: z.string(),
});
export const searchMemoryResponseSchema = z.object({
  results: z.array(memoryResultSchema),
  mode: z.enum(["keyword", "vector", "hybrid"]),
});

export const learningBodySchema = z.strictObject({
  targetAgentId: z.string().min(1).max(64),
  category: learningCategorySchema,
  learning: z.string().trim().min(1).max(8000),
  /** Also add a line to the target's CLAUDE.md as a new version. */
  addToClaudeMd: z.boolean().default(false),
});

// ---- operator API (/api/v1/memories) ----

export const listMemoriesQuerySchema = z.object({
  agentId: z.string().min(1).max(64).optional(),
  scope: memoryScopeSchema.optional(),
  source: memorySourceSchema.optional(),
  q: z.string().trim().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /**
   * The last id of the previous page (lists run newest first). Ids are 32-bit on
   * PostgreSQL (SERIAL): a larger cursor is refused on both stores alike.
   */
  cursor: z.coerce.number().int().min(1).max(2_147_483_647).optional(),
});

const operatorMemorySchema = z.strictObject({
  name: oneLine(z.string().trim().min(1).max(200)),
  content: z.string().min(1).max(MAX_MEMORY_CONTENT_CHARS),
  scope: memoryScopeSchema.default("swarm"),
  source: memorySourceSchema.default("manual"),
  /** Required for agent scope: whose memory it is. */
  agentId: z.string().min(1).max(64).optional(),
  taskId: z.string().max(64).optional(),
});
/** One memory, or `{items: [...]}` (up to 500) in one transaction. */
export const operatorCreateMemoryBodySchema = z.union([
  operatorMemorySchema,
  z.strictObject({ items: z.array(operatorMemorySchema).min(1).max(500) }),
]);

/** auto: hybrid when embeddings are available, else keyword. The others force one path (to compare modes). */
export const SEARCH_MODES = ["auto", "keyword", "vector", "hybrid"] as const;

export const operatorSearchBodySchema = searchMemoryBodySchema.extend({
  /** Narrow agent-scope memories to one agent (swarm memories still match). */
  agentId: z.string().min(1).max(64).optional(),
  mode: z.enum(SEARCH_MODES).default("auto"),
});

export const memoryDetailSchema = memoryResultSchema.omit({ score: true }).extend({
  sourceTaskId: z.string().nullable(),
  sourcePath: z.string().nullable(),
  chunkIndex: z.number(),
  groupId: z.string().nullable(),
  embeddingStatus: z.enum(["none", "pending", "done", "failed"]),
  embeddingError: z.string().nullable(),
  accessCount: z.number(),
  lastAccessedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  duplicateOfId: z.number().nullable(),
  archivedAt: z.string().nullable(),
});
export type MemoryDetail = z.infer<typeof memoryDetailSchema>;

export const memoryHealthSchema = z.object({
  days: z.number(),
  threshold: z.number(),
  provider: z.object({ configured: z.boolean(), embeddingModel: z.string().nullable(), summaryModel: z.string().nullable() }),
  /** The embedder that answers searches now: the provider, the embedded default (local word vectors), or none (keyword only). */
  embedder: z.object({ kind: z.enum(["provider", "local", "none"]), model: z.string().nullable() }),
  totals: z.object({
    memories: z.number(),
    embedded: z.number(),
    pending: z.number(),
    failed: z.number(),
    duplicatesFlagged: z.number(),
    archived: z.number(),
  }),
  perDay: z.array(
    z.object({ day: z.string(), searches: z.number(), withEmbeddings: z.number(), keywordOnly: z.number(), injections: z.number() }),
  ),
  fallbackReasons: z.array(z.object({ reason: z.string(), count: z.number() })),
  injectionsPerTask: z.object({ tasks: z.number(), injected: z.number(), average: z.number() }),
  /** Top scores in 0.1 buckets, split at the threshold. */
  scoreBuckets: z.array(z.object({ from: z.number(), to: z.number(), count: z.number(), aboveThreshold: z.boolean() })),
  /** Share of searches and injections whose best result reached the threshold (lib/memory/scoring.ts isRetrievalHit); null without any. */
  hitRate: z.number().nullable(),
  recentFailures: z.array(z.object({ id: z.number(), name: z.string(), error: z.string().nullable(), attempts: z.number() })),
});
export type MemoryHealth = z.infer<typeof memoryHealthSchema>;
