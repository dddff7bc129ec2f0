// Identity kinds and the wire shapes of identity reads, writes and proposals.
import { z } from "zod";

export const IDENTITY_KINDS = [
  "AGENT",
  "SOUL",
  "IDENTITY",
  "USER",
  "TOOLS",
  "CLAUDE",
  "HEARTBEAT",
  "BOOTSTRAP",
  "SETUP_SCRIPT",
  "CAPABILITIES",
] as const;
export const identityKindSchema = z.enum(IDENTITY_KINDS);
export type IdentityKind = z.infer<typeof identityKindSchema>;

/** The file each kind becomes in the agent's workspace. */
export const IDENTITY_FILE_NAMES: Record<IdentityKind, string> = {
  AGENT: "AGENT.md",
  SOUL: "SOUL.md",
  IDENTITY: "IDENTITY.md",
  USER: "USER.md",
  TOOLS: "TOOLS.md",
  CLAUDE: "CLAUDE.md",
  HEARTBEAT: "HEARTBEAT.md",
  BOOTSTRAP: "BOOTSTRAP.md",
  SETUP_SCRIPT: "start-up.sh",
  CAPABILITIES: "capabilities.yaml",
};

export const IDENTITY_LANGUAGES: Record<IdentityKind, "markdown" | "shell" | "yaml"> = {
  AGENT: "markdown",
  SOUL: "markdown",
  IDENTITY: "markdown",
  USER: "markdown",
  TOOLS: "markdown",
  CLAUDE: "markdown",
  HEARTBEAT: "markdown",
  BOOTSTRAP: "markdown",
  SETUP_SCRIPT: "shell",
  CAPABILITIES: "yaml",
};

/** `soul`, `setup-script`, ... as they appear in URL paths. */
export function kindToSlug(kind: IdentityKind): string {
  return kind.toLowerCase().replace(/_/g, "-");
}

/** Strict: only the ten slugs map to a kind; anything else (paths included) is null. */
export function slugToKind(slug: string): IdentityKind | null {
  if (!/^[a-z]+(-[a-z]+)?$/.test(slug)) return null;
  const kind = slug.toUpperCase().replace(/-/g, "_");
  return (IDENTITY_KINDS as readonly string[]).includes(kind) ? (kind as IdentityKind) : null;
}

/** Most a stored identity file may hold (413 beyond). */
export const MAX_IDENTITY_BYTES = 64 * 1024;

export const AUTHOR_TYPES = ["operator", "agent", "lead", "system"] as const;
export const VERSION_SOURCES = [
  "editor",
  "api",
  "agent_write",
  "approved_proposal",
  "rollback",
  "session_sync",
  "bootstrap",
  "template",
] as const;
export type VersionSource = (typeof VERSION_SOURCES)[number];

/** `refused`: the agent's profile refused it (paranoid); the text is kept for the agent and the operators to see. */
export const PROPOSAL_STATUSES = ["pending", "approved", "rejected", "refused", "superseded", "conflict"] as const;
export const proposalStatusSchema = z.enum(PROPOSAL_STATUSES);

/** `user_request`: an explicit request, i.e. the write came from a claimed task carrying an operator's grant for the kind. */
export const TRIGGERS = ["agent", "user_request"] as const;
export const triggerSchema = z.enum(TRIGGERS);
export type Trigger = z.infer<typeof triggerSchema>;

const contentSchema = z.string();

export const putIdentityBodySchema = z.strictObject({
  content: contentSchema,
  baseVersionId: z.string().max(64).nullable(),
  reason: z.string().trim().max(1000).optional(),
});

export const workerPutIdentityBodySchema = z.strictObject({
  content: contentSchema,
  baseVersionId: z.string().max(64).nullable(),
  reason: z.string().trim().min(1, "a reason is required").max(1000),
  /**
   * Ignored (accepted so that older workers keep working): the agent cannot declare
   * an explicit request; the task's grant decides (lib/identity/rules.ts).
   */
  trigger: triggerSchema.optional(),
  /**
   * "write" (default) applies what the agent's profile allows; "propose" queues a
   * proposal for an operator (`swarm identity propose`; on power a proposal is a
   * write); "review" queues one on every profile, power too: the worker's retry of
   * a 409, whose text was written against an older version, so that neither the
   * agent's text is lost nor the newer version silently overwritten.
   */
  mode: z.enum(["write", "propose", "review"]).default("write"),
  /** The claimed task the write comes from; only its grant can make the write an explicit request. */
  taskId: z.string().max(64).optional(),
});
export type WorkerPutIdentityBody = z.infer<typeof workerPutIdentityBodySchema>;

export const rollbackBodySchema = z.strictObject({
  versionId: z.string().min(1).max(64),
  reason: z.string().trim().max(1000).optional(),
});

export const identityFileSchema = z.object({
  kind: identityKindSchema,
  path: z.string(),
  language: z.enum(["markdown", "shell", "yaml"]),
  content: z.string(),
  exists: z.boolean(),
  versionId: z.string().nullable(),
  versionNumber: z.number().nullable(),
  updatedAt: z.string().nullable(),
  locked: z.boolean(),
});
export type IdentityFileDto = z.infer<typeof identityFileSchema>;

export const identityVersionSchema = z.object({
  id: z.string(),
  number: z.number(),
  kind: identityKindSchema,
  authorType: z.string(),
  authorId: z.string().nullable(),
  authorLabel: z.string(),
  source: z.string(),
  reason: z.string().nullable(),
  taskId: z.string().nullable(),
  sessionId: z.string().nullable(),
  deleted: z.boolean(),
  size: z.number(),
  contentHash: z.string(),
  parentVersionId: z.string().nullable(),
  createdAt: z.string(),
});
export type IdentityVersionDto = z.infer<typeof identityVersionSchema>;

export const identityVersionWithContentSchema = identityVersionSchema.extend({ content: z.string() });

export const writeResultSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("applied"),
    versionId: z.string(),
    merged: z.boolean().optional(),
    /** The content equals the current version: nothing was written. */
    unchanged: z.boolean().optional(),
  }),
  z.object({ status: z.literal("pending"), proposalId: z.string() }),
]);
export type WriteResult = z.infer<typeof writeResultSchema>;

export const listProposalsQuerySchema = z.object({
  status: proposalStatusSchema.optional(),
  agentId: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});

export const approveProposalBodySchema = z.strictObject({
  note: z.string().trim().max(2000).optional(),
  content: z.string().optional(),
});

export const rejectProposalBodySchema = z.strictObject({
  note: z.string().trim().min(1, "a note is required when rejecting").max(2000),
});

/** A proposal as the review queue shows it; contents only in the detail view. */
export const proposalSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  kind: identityKindSchema,
  path: z.string(),
  language: z.enum(["markdown", "shell", "yaml"]),
  baseVersionId: z.string().nullable(),
  baseVersionNumber: z.number().nullable(),
  currentVersionId: z.string().nullable(),
  currentVersionNumber: z.number().nullable(),
  /** True when the file moved on since the proposal's base. */
  baseMoved: z.boolean(),
  reason: z.string(),
  trigger: triggerSchema,
  status: proposalStatusSchema,
  edited: z.boolean(),
  reviewerId: z.string().nullable(),
  reviewerLabel: z.string().nullable(),
  reviewNote: z.string().nullable(),
  decidedAt: z.string().nullable(),
  resultVersionId: z.string().nullable(),
  supersededById: z.string().nullable(),
  taskId: z.string().nullable(),
  createdAt: z.string(),
});
export type ProposalDto = z.infer<typeof proposalSchema>;

export const proposalDetailSchema = proposalSchema.extend({
  baseContent: z.string(),
  currentContent: z.string(),
  proposedContent: z.string(),
  /** Three-way merge of the proposal onto the current version (with conflict markers when not clean). */
  mergedContent: z.string().nullable(),
  mergeClean: z.boolean().nullable(),
});
export type ProposalDetailDto = z.infer<typeof proposalDetailSchema>;

export const promptPreviewSchema = z.object({
  systemPrompt: z.string(),
  bootstrap: z.boolean(),
  soulVersionId: z.string().nullable(),
  truncated: z.array(z.string()),
  /** What the next task will change first (e.g. retiring BOOTSTRAP.md). */
  notes: z.array(z.string()),
  capChars: z.number(),
});
export type PromptPreviewDto = z.infer<typeof promptPreviewSchema>;

/**
 * An operator's (or the profile's) decision on one of the agent's proposals, as the
 * agent hears it: in its next task bundle and from `swarm identity proposals`.
 */
export const agentDecisionSchema = z.object({
  proposalId: z.string(),
  kind: identityKindSchema,
  path: z.string(),
  status: proposalStatusSchema,
  /** Approved with the reviewer's edits: appliedContent differs from what the agent proposed. */
  edited: z.boolean(),
  reason: z.string(),
  /** The reviewer's note (required on a rejection), or why the profile refused it. */
  note: z.string().nullable(),
  proposedContent: z.string(),
  /** The text that became the file's version (approved only). */
  appliedContent: z.string().nullable(),
  resultVersionId: z.string().nullable(),
  taskId: z.string().nullable(),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
});
export type AgentDecision = z.infer<typeof agentDecisionSchema>;
export const agentProposalsResponseSchema = z.object({ proposals: z.array(agentDecisionSchema) });
