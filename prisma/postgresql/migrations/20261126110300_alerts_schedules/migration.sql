-- PostgreSQL only (lib/alerts/alerts.pg.ts): at most one open alert per scope and
-- agent, even should two evaluators run at once. The evaluation also takes an
-- advisory lock, and this index is the guarantee at the table.
CREATE UNIQUE INDEX "Alert_open_scope_agent_key" ON "Alert" ("scope", COALESCE("agentId", '')) WHERE "resolvedAt" IS NULL;
