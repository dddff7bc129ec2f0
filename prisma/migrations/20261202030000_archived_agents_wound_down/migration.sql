-- Archiving an agent now closes its open proposals as rejected and switches off the
-- schedules aimed at it alone (archiveAgent in lib/agents/agents.ts): its identity can
-- no longer change, so those proposals could be neither approved nor rejected yet
-- stayed in the review queue, and each run of such a schedule failed to create a
-- task. The agents archived before that get the same, their proposals decided when
-- the agent was archived.
UPDATE "IdentityProposal"
SET "status" = 'rejected',
    "reviewNote" = 'The agent was archived',
    "decidedAt" = (SELECT "archivedAt" FROM "Agent" WHERE "Agent"."id" = "IdentityProposal"."agentId"),
    "updatedAt" = (SELECT "archivedAt" FROM "Agent" WHERE "Agent"."id" = "IdentityProposal"."agentId")
WHERE "status" IN ('pending', 'conflict')
  AND "agentId" IN (SELECT "id" FROM "Agent" WHERE "archivedAt" IS NOT NULL);

UPDATE "Schedule"
SET "enabled" = false,
    "nextRunAt" = NULL
WHERE "targetKind" = 'agent'
  AND "enabled" = true
  AND "agentId" IN (SELECT "id" FROM "Agent" WHERE "archivedAt" IS NOT NULL);
