-- PostgreSQL only: agent and tool names compare and sort byte by byte ("C"), as
-- SQLite's BINARY collation does, whatever collation the database was created with.
-- Lists ordered by name (lib/agents/agents.ts, lib/tools/tool-admin.ts and
-- lib/tools/agent-tools.ts) then come out in the same order on both stores, and
-- names that differ only in case or accents stay distinct for the unique indexes.
ALTER TABLE "Agent" ALTER COLUMN "name" TYPE TEXT COLLATE "C";
ALTER TABLE "AgentTool" ALTER COLUMN "name" TYPE TEXT COLLATE "C";
