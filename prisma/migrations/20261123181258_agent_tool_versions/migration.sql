-- CreateTable
CREATE TABLE "AgentToolVersion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "toolId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "op" TEXT NOT NULL DEFAULT 'write',
    "status" TEXT NOT NULL DEFAULT 'applied',
    "description" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL DEFAULT '',
    "compiledCode" TEXT NOT NULL DEFAULT '',
    "inputSchema" TEXT NOT NULL DEFAULT '{}',
    "timeoutMs" INTEGER,
    "testInput" TEXT NOT NULL DEFAULT 'null',
    "testOutput" TEXT NOT NULL DEFAULT 'null',
    "testDurationMs" INTEGER,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL DEFAULT '',
    "reason" TEXT NOT NULL DEFAULT '',
    "taskId" TEXT,
    "reviewedById" TEXT,
    "reviewNote" TEXT,
    "reviewedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "AgentToolVersion_toolId_fkey" FOREIGN KEY ("toolId") REFERENCES "AgentTool" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_AgentTool" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "currentVersionId" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "deletedAt" DATETIME,
    "callCount" INTEGER NOT NULL DEFAULT 0,
    "failureCount" INTEGER NOT NULL DEFAULT 0,
    "lastCalledAt" DATETIME,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "AgentTool_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_AgentTool" ("agentId", "createdAt", "description", "id", "name", "updatedAt") SELECT "agentId", "createdAt", "description", "id", "name", "updatedAt" FROM "AgentTool";
DROP TABLE "AgentTool";
ALTER TABLE "new_AgentTool" RENAME TO "AgentTool";
CREATE UNIQUE INDEX "AgentTool_agentId_name_key" ON "AgentTool"("agentId", "name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "AgentToolVersion_status_idx" ON "AgentToolVersion"("status");

-- CreateIndex
CREATE UNIQUE INDEX "AgentToolVersion_toolId_version_key" ON "AgentToolVersion"("toolId", "version");
