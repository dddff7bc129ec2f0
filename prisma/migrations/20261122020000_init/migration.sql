-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "passwordHash" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'operator',
    "disabledAt" DATETIME,
    "lastLoginAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ApiToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "displayName" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "role" TEXT NOT NULL DEFAULT 'worker',
    "status" TEXT NOT NULL DEFAULT 'idle',
    "capabilities" TEXT NOT NULL DEFAULT '[]',
    "securityProfile" TEXT NOT NULL DEFAULT 'standard',
    "maxConcurrentTasks" INTEGER NOT NULL DEFAULT 1,
    "lastSeenAt" DATETIME,
    "workerVersion" TEXT,
    "workerHostname" TEXT,
    "harness" TEXT,
    "archivedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "WorkerToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "WorkerToken_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "IdentityFile" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "currentVersionId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "IdentityFile_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "IdentityFile_currentVersionId_fkey" FOREIGN KEY ("currentVersionId") REFERENCES "IdentityVersion" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "IdentityVersion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "fileId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "parentVersionId" TEXT,
    "authorType" TEXT NOT NULL,
    "authorId" TEXT,
    "source" TEXT NOT NULL,
    "reason" TEXT,
    "taskId" TEXT,
    "sessionId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "IdentityVersion_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "IdentityFile" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "IdentityProposal" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentId" TEXT NOT NULL,
    "fileId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "baseVersionId" TEXT,
    "proposedContent" TEXT NOT NULL,
    "mergedContent" TEXT,
    "reason" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "edited" BOOLEAN NOT NULL DEFAULT false,
    "reviewerId" TEXT,
    "reviewNote" TEXT,
    "decidedAt" DATETIME,
    "resultVersionId" TEXT,
    "supersededById" TEXT,
    "taskId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "IdentityProposal_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "IdentityProposal_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "IdentityFile" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "IdentityProposal_baseVersionId_fkey" FOREIGN KEY ("baseVersionId") REFERENCES "IdentityVersion" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "IdentityProposal_resultVersionId_fkey" FOREIGN KEY ("resultVersionId") REFERENCES "IdentityVersion" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL DEFAULT '',
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "agentId" TEXT,
    "data" TEXT NOT NULL DEFAULT '{}',
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "SwarmConfig" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scope" TEXT NOT NULL,
    "scopeId" TEXT NOT NULL DEFAULT '',
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "secret" BOOLEAN NOT NULL DEFAULT false,
    "updatedById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Task" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "type" TEXT NOT NULL DEFAULT 'task',
    "tags" TEXT NOT NULL DEFAULT '[]',
    "priority" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'unassigned',
    "agentId" TEXT,
    "parentTaskId" TEXT,
    "scheduleId" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "claimedAt" DATETIME,
    "heartbeatAt" DATETIME,
    "finishedAt" DATETIME,
    "progress" TEXT,
    "output" TEXT,
    "summary" TEXT,
    "failureReason" TEXT,
    "soulVersionId" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Task_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Task_parentTaskId_fkey" FOREIGN KEY ("parentTaskId") REFERENCES "Task" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TaskEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "taskId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "fromStatus" TEXT,
    "toStatus" TEXT,
    "message" TEXT NOT NULL DEFAULT '',
    "data" TEXT NOT NULL DEFAULT '{}',
    "actorType" TEXT NOT NULL DEFAULT 'system',
    "actorId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TaskEvent_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TaskDailyRollup" (
    "day" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "created" INTEGER NOT NULL DEFAULT 0,
    "completed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "cancelled" INTEGER NOT NULL DEFAULT 0,
    "durationSumMs" REAL NOT NULL DEFAULT 0,
    "durationCount" INTEGER NOT NULL DEFAULT 0,
    "durationHist" TEXT NOT NULL DEFAULT '[]',

    PRIMARY KEY ("day", "agentId")
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scope" TEXT NOT NULL,
    "agentId" TEXT,
    "windowDays" INTEGER NOT NULL,
    "threshold" REAL NOT NULL,
    "failureRate" REAL NOT NULL,
    "failed" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,
    "firedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" DATETIME
);

-- CreateTable
CREATE TABLE "Memory" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "scope" TEXT NOT NULL,
    "agentId" TEXT,
    "name" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "sourceTaskId" TEXT,
    "sourcePath" TEXT,
    "groupId" TEXT,
    "chunkIndex" INTEGER NOT NULL DEFAULT 0,
    "embedding" BLOB,
    "embeddingModel" TEXT,
    "embeddingDims" INTEGER,
    "embeddingStatus" TEXT NOT NULL DEFAULT 'none',
    "embeddingError" TEXT,
    "embeddingAttempts" INTEGER NOT NULL DEFAULT 0,
    "contentHash" TEXT NOT NULL,
    "accessCount" INTEGER NOT NULL DEFAULT 0,
    "lastAccessedAt" DATETIME,
    "expiresAt" DATETIME,
    "supersededById" INTEGER,
    "duplicateOfId" INTEGER,
    "archivedAt" DATETIME,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Memory_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MemoryRetrieval" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "kind" TEXT NOT NULL,
    "agentId" TEXT,
    "taskId" TEXT,
    "query" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "embeddingUsed" BOOLEAN NOT NULL DEFAULT false,
    "fallbackReason" TEXT,
    "resultCount" INTEGER NOT NULL,
    "topScore" REAL,
    "threshold" REAL,
    "results" TEXT NOT NULL DEFAULT '[]',
    "durationMs" REAL NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentId" TEXT NOT NULL,
    "taskId" TEXT,
    "harness" TEXT,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" DATETIME,
    "exitCode" INTEGER,
    "summary" TEXT,
    "summaryStatus" TEXT NOT NULL DEFAULT 'none',
    CONSTRAINT "Session_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Session_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Schedule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "templateKey" TEXT,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "agentId" TEXT,
    "taskTitle" TEXT NOT NULL,
    "taskDescription" TEXT NOT NULL DEFAULT '',
    "taskType" TEXT NOT NULL DEFAULT 'task',
    "taskTags" TEXT NOT NULL DEFAULT '[]',
    "taskPriority" INTEGER NOT NULL DEFAULT 0,
    "lastRunAt" DATETIME,
    "nextRunAt" DATETIME,
    "lastTaskId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Schedule_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ScheduleRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scheduleId" TEXT NOT NULL,
    "scheduledFor" DATETIME NOT NULL,
    "firedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "trigger" TEXT NOT NULL DEFAULT 'cron',
    "taskId" TEXT,
    "status" TEXT NOT NULL DEFAULT 'created',
    "error" TEXT,
    CONSTRAINT "ScheduleRun_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "Schedule" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AgentTool" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL,
    "compiledCode" TEXT,
    "testResult" TEXT,
    "testPassed" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "AgentTool_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateIndex
CREATE INDEX "ApiToken_userId_idx" ON "ApiToken"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Agent_name_key" ON "Agent"("name");

-- CreateIndex
CREATE INDEX "Agent_archivedAt_idx" ON "Agent"("archivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "WorkerToken_tokenHash_key" ON "WorkerToken"("tokenHash");

-- CreateIndex
CREATE INDEX "WorkerToken_agentId_idx" ON "WorkerToken"("agentId");

-- CreateIndex
CREATE UNIQUE INDEX "IdentityFile_currentVersionId_key" ON "IdentityFile"("currentVersionId");

-- CreateIndex
CREATE UNIQUE INDEX "IdentityFile_agentId_kind_key" ON "IdentityFile"("agentId", "kind");

-- CreateIndex
CREATE INDEX "IdentityVersion_agentId_kind_createdAt_idx" ON "IdentityVersion"("agentId", "kind", "createdAt");

-- CreateIndex
CREATE INDEX "IdentityVersion_createdAt_idx" ON "IdentityVersion"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "IdentityVersion_fileId_number_key" ON "IdentityVersion"("fileId", "number");

-- CreateIndex
CREATE INDEX "IdentityProposal_status_createdAt_idx" ON "IdentityProposal"("status", "createdAt");

-- CreateIndex
CREATE INDEX "IdentityProposal_agentId_kind_status_idx" ON "IdentityProposal"("agentId", "kind", "status");

-- CreateIndex
CREATE INDEX "IdentityProposal_decidedAt_idx" ON "IdentityProposal"("decidedAt");

-- CreateIndex
CREATE UNIQUE INDEX "AuditEvent_hash_key" ON "AuditEvent"("hash");

-- CreateIndex
CREATE INDEX "AuditEvent_action_idx" ON "AuditEvent"("action");

-- CreateIndex
CREATE INDEX "AuditEvent_agentId_id_idx" ON "AuditEvent"("agentId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "SwarmConfig_scope_scopeId_key_key" ON "SwarmConfig"("scope", "scopeId", "key");

-- CreateIndex
CREATE INDEX "Task_status_priority_createdAt_idx" ON "Task"("status", "priority", "createdAt");

-- CreateIndex
CREATE INDEX "Task_agentId_status_priority_createdAt_idx" ON "Task"("agentId", "status", "priority", "createdAt");

-- CreateIndex
CREATE INDEX "Task_status_heartbeatAt_idx" ON "Task"("status", "heartbeatAt");

-- CreateIndex
CREATE INDEX "Task_finishedAt_idx" ON "Task"("finishedAt");

-- CreateIndex
CREATE INDEX "Task_agentId_finishedAt_idx" ON "Task"("agentId", "finishedAt");

-- CreateIndex
CREATE INDEX "Task_createdAt_idx" ON "Task"("createdAt");

-- CreateIndex
CREATE INDEX "TaskEvent_taskId_id_idx" ON "TaskEvent"("taskId", "id");

-- CreateIndex
CREATE INDEX "Alert_resolvedAt_idx" ON "Alert"("resolvedAt");

-- CreateIndex
CREATE INDEX "Memory_contentHash_idx" ON "Memory"("contentHash");

-- CreateIndex
CREATE INDEX "Memory_agentId_scope_idx" ON "Memory"("agentId", "scope");

-- CreateIndex
CREATE INDEX "Memory_scope_source_idx" ON "Memory"("scope", "source");

-- CreateIndex
CREATE INDEX "Memory_source_createdAt_idx" ON "Memory"("source", "createdAt");

-- CreateIndex
CREATE INDEX "Memory_embeddingStatus_idx" ON "Memory"("embeddingStatus");

-- CreateIndex
CREATE INDEX "Memory_expiresAt_idx" ON "Memory"("expiresAt");

-- CreateIndex
CREATE INDEX "Memory_groupId_idx" ON "Memory"("groupId");

-- CreateIndex
CREATE INDEX "MemoryRetrieval_createdAt_idx" ON "MemoryRetrieval"("createdAt");

-- CreateIndex
CREATE INDEX "MemoryRetrieval_taskId_idx" ON "MemoryRetrieval"("taskId");

-- CreateIndex
CREATE INDEX "Session_agentId_startedAt_idx" ON "Session"("agentId", "startedAt");

-- CreateIndex
CREATE INDEX "Session_taskId_idx" ON "Session"("taskId");

-- CreateIndex
CREATE INDEX "Schedule_enabled_nextRunAt_idx" ON "Schedule"("enabled", "nextRunAt");

-- CreateIndex
CREATE INDEX "ScheduleRun_scheduleId_firedAt_idx" ON "ScheduleRun"("scheduleId", "firedAt");

-- CreateIndex
CREATE UNIQUE INDEX "ScheduleRun_scheduleId_scheduledFor_key" ON "ScheduleRun"("scheduleId", "scheduledFor");

-- CreateIndex
CREATE UNIQUE INDEX "AgentTool_agentId_name_key" ON "AgentTool"("agentId", "name");


-- Keyword search over memories (not expressible in schema.prisma): an FTS5 index
-- over Memory(name, content) with Porter stemming, kept in sync by triggers.
-- Memory.id is an INTEGER PRIMARY KEY, so the rowid link is stable across VACUUM.
CREATE VIRTUAL TABLE "memory_fts" USING fts5(
    name,
    content,
    content='Memory',
    content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER "memory_fts_after_insert" AFTER INSERT ON "Memory" BEGIN
    INSERT INTO "memory_fts"(rowid, name, content) VALUES (new.id, new.name, new.content);
END;

CREATE TRIGGER "memory_fts_after_delete" AFTER DELETE ON "Memory" BEGIN
    INSERT INTO "memory_fts"("memory_fts", rowid, name, content) VALUES ('delete', old.id, old.name, old.content);
END;

CREATE TRIGGER "memory_fts_after_update" AFTER UPDATE OF name, content ON "Memory" BEGIN
    INSERT INTO "memory_fts"("memory_fts", rowid, name, content) VALUES ('delete', old.id, old.name, old.content);
    INSERT INTO "memory_fts"(rowid, name, content) VALUES (new.id, new.name, new.content);
END;
