-- An archived agent's open proposals are closed as rejected when it is archived
-- (archiveAgent in lib/agents/agents.ts): its identity can no longer change, so they
-- could be neither approved nor rejected, yet stayed in the review queue. The agents
-- archived before that get the same, decided when they were archived.
UPDATE "IdentityProposal"
SET "status" = 'rejected',
    "reviewNote" = 'The agent was archived',
    "decidedAt" = (SELECT "archivedAt" FROM "Agent" WHERE "Agent"."id" = "IdentityProposal"."agentId"),
    "updatedAt" = (SELECT "archivedAt" FROM "Agent" WHERE "Agent"."id" = "IdentityProposal"."agentId")
WHERE "status" IN ('pending', 'conflict')
  AND "agentId" IN (SELECT "id" FROM "Agent" WHERE "archivedAt" IS NOT NULL);
