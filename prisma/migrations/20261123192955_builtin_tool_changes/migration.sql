-- CreateTable
CREATE TABLE "BuiltinToolChange" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "branch" TEXT,
    "commit" TEXT,
    "source" TEXT NOT NULL,
    "compiledCode" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "inputSchema" TEXT NOT NULL DEFAULT '{}',
    "testInput" TEXT NOT NULL DEFAULT 'null',
    "testOutput" TEXT NOT NULL DEFAULT 'null',
    "error" TEXT,
    "reason" TEXT NOT NULL DEFAULT '',
    "taskId" TEXT,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "BuiltinToolChange_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "BuiltinToolChange_agentId_toolName_status_idx" ON "BuiltinToolChange"("agentId", "toolName", "status");
