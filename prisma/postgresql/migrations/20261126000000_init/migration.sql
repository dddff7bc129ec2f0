-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "passwordHash" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'operator',
    "disabledAt" TIMESTAMPTZ(3),
    "lastLoginAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OperatorSession" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "userAgent" TEXT NOT NULL DEFAULT '',
    "address" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),
    "endReason" TEXT,

    CONSTRAINT "OperatorSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "displayName" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "role" TEXT NOT NULL DEFAULT 'worker',
    "status" TEXT NOT NULL DEFAULT 'idle',
    "capabilities" TEXT NOT NULL DEFAULT '[]',
    "securityProfile" TEXT NOT NULL DEFAULT 'standard',
    "maxConcurrentTasks" INTEGER NOT NULL DEFAULT 1,
    "lastSeenAt" TIMESTAMPTZ(3),
    "workerVersion" TEXT,
    "workerHostname" TEXT,
    "harness" TEXT,
    "setupStatus" TEXT,
    "setupOutput" TEXT,
    "setupHash" TEXT,
    "setupAt" TIMESTAMPTZ(3),
    "archivedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WorkerToken" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),
    "createdById" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WorkerToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IdentityFile" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "currentVersionId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "IdentityFile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IdentityVersion" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IdentityVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IdentityProposal" (
    "id" TEXT NOT NULL,
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
    "decidedAt" TIMESTAMPTZ(3),
    "resultVersionId" TEXT,
    "supersededById" TEXT,
    "taskId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "IdentityProposal_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" SERIAL NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL DEFAULT '',
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "agentId" TEXT,
    "data" TEXT NOT NULL DEFAULT '{}',
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SwarmConfig" (
    "id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "scopeId" TEXT NOT NULL DEFAULT '',
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "secret" BOOLEAN NOT NULL DEFAULT false,
    "updatedById" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SwarmConfig_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Task" (
    "id" TEXT NOT NULL,
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
    "claimedAt" TIMESTAMPTZ(3),
    "heartbeatAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "progress" TEXT,
    "output" TEXT,
    "summary" TEXT,
    "failureReason" TEXT,
    "soulVersionId" TEXT,
    "retryAt" TIMESTAMPTZ(3),
    "lastAgentId" TEXT,
    "timeLimitMinutes" DOUBLE PRECISION,
    "lastActivityAt" TIMESTAMPTZ(3),
    "lastActivity" TEXT,
    "identityGrant" TEXT NOT NULL DEFAULT '[]',
    "createdById" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TaskEvent" (
    "id" SERIAL NOT NULL,
    "taskId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "fromStatus" TEXT,
    "toStatus" TEXT,
    "message" TEXT NOT NULL DEFAULT '',
    "data" TEXT NOT NULL DEFAULT '{}',
    "actorType" TEXT NOT NULL DEFAULT 'system',
    "actorId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TaskEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TaskDailyRollup" (
    "day" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "created" INTEGER NOT NULL DEFAULT 0,
    "completed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "cancelled" INTEGER NOT NULL DEFAULT 0,
    "durationSumMs" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "durationCount" INTEGER NOT NULL DEFAULT 0,
    "durationHist" TEXT NOT NULL DEFAULT '[]',

    CONSTRAINT "TaskDailyRollup_pkey" PRIMARY KEY ("day","agentId")
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "agentId" TEXT,
    "windowDays" INTEGER NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "failureRate" DOUBLE PRECISION NOT NULL,
    "failed" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,
    "firedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Alert_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Memory" (
    "id" SERIAL NOT NULL,
    "scope" TEXT NOT NULL,
    "agentId" TEXT,
    "name" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "sourceTaskId" TEXT,
    "sourcePath" TEXT,
    "groupId" TEXT,
    "chunkIndex" INTEGER NOT NULL DEFAULT 0,
    "embedding" BYTEA,
    "embeddingModel" TEXT,
    "embeddingDims" INTEGER,
    "embeddingStatus" TEXT NOT NULL DEFAULT 'none',
    "embeddingError" TEXT,
    "embeddingAttempts" INTEGER NOT NULL DEFAULT 0,
    "contentHash" TEXT NOT NULL,
    "accessCount" INTEGER NOT NULL DEFAULT 0,
    "lastAccessedAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3),
    "supersededById" INTEGER,
    "duplicateOfId" INTEGER,
    "archivedAt" TIMESTAMPTZ(3),
    "createdById" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Memory_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MemoryRetrieval" (
    "id" SERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "agentId" TEXT,
    "taskId" TEXT,
    "query" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "embeddingUsed" BOOLEAN NOT NULL DEFAULT false,
    "fallbackReason" TEXT,
    "resultCount" INTEGER NOT NULL,
    "topScore" DOUBLE PRECISION,
    "threshold" DOUBLE PRECISION,
    "results" TEXT NOT NULL DEFAULT '[]',
    "durationMs" DOUBLE PRECISION NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MemoryRetrieval_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "taskId" TEXT,
    "harness" TEXT,
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMPTZ(3),
    "exitCode" INTEGER,
    "summary" TEXT,
    "summaryStatus" TEXT NOT NULL DEFAULT 'none',

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Schedule" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "templateKey" TEXT,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "targetKind" TEXT NOT NULL DEFAULT 'pool',
    "targetValue" TEXT,
    "agentId" TEXT,
    "taskTitle" TEXT NOT NULL,
    "taskDescription" TEXT NOT NULL DEFAULT '',
    "taskType" TEXT NOT NULL DEFAULT 'task',
    "taskTags" TEXT NOT NULL DEFAULT '[]',
    "taskPriority" INTEGER NOT NULL DEFAULT 0,
    "lastRunAt" TIMESTAMPTZ(3),
    "nextRunAt" TIMESTAMPTZ(3),
    "lastTaskId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Schedule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ScheduleRun" (
    "id" TEXT NOT NULL,
    "scheduleId" TEXT NOT NULL,
    "scheduledFor" TIMESTAMPTZ(3) NOT NULL,
    "firedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "trigger" TEXT NOT NULL DEFAULT 'cron',
    "taskId" TEXT,
    "taskIds" TEXT NOT NULL DEFAULT '[]',
    "skips" TEXT NOT NULL DEFAULT '[]',
    "status" TEXT NOT NULL DEFAULT 'created',
    "error" TEXT,

    CONSTRAINT "ScheduleRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentTool" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "currentVersionId" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "deletedAt" TIMESTAMPTZ(3),
    "callCount" INTEGER NOT NULL DEFAULT 0,
    "failureCount" INTEGER NOT NULL DEFAULT 0,
    "lastCalledAt" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "AgentTool_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentToolVersion" (
    "id" TEXT NOT NULL,
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
    "reviewedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AgentToolVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BuiltinToolChange" (
    "id" TEXT NOT NULL,
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
    "reviewedById" TEXT,
    "reviewNote" TEXT,
    "reviewedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BuiltinToolChange_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "OperatorSession_userId_endedAt_idx" ON "OperatorSession"("userId", "endedAt");

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
CREATE INDEX "Task_status_finishedAt_idx" ON "Task"("status", "finishedAt");

-- CreateIndex
CREATE INDEX "Task_createdAt_idx" ON "Task"("createdAt");

-- CreateIndex
CREATE INDEX "TaskEvent_taskId_id_idx" ON "TaskEvent"("taskId", "id");

-- CreateIndex
CREATE INDEX "TaskEvent_type_createdAt_idx" ON "TaskEvent"("type", "createdAt");

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

-- CreateIndex
CREATE INDEX "AgentToolVersion_status_idx" ON "AgentToolVersion"("status");

-- CreateIndex
CREATE UNIQUE INDEX "AgentToolVersion_toolId_version_key" ON "AgentToolVersion"("toolId", "version");

-- CreateIndex
CREATE INDEX "BuiltinToolChange_agentId_toolName_status_idx" ON "BuiltinToolChange"("agentId", "toolName", "status");

-- AddForeignKey
ALTER TABLE "OperatorSession" ADD CONSTRAINT "OperatorSession_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkerToken" ADD CONSTRAINT "WorkerToken_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IdentityFile" ADD CONSTRAINT "IdentityFile_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IdentityFile" ADD CONSTRAINT "IdentityFile_currentVersionId_fkey" FOREIGN KEY ("currentVersionId") REFERENCES "IdentityVersion"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IdentityVersion" ADD CONSTRAINT "IdentityVersion_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "IdentityFile"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IdentityProposal" ADD CONSTRAINT "IdentityProposal_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IdentityProposal" ADD CONSTRAINT "IdentityProposal_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "IdentityFile"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IdentityProposal" ADD CONSTRAINT "IdentityProposal_baseVersionId_fkey" FOREIGN KEY ("baseVersionId") REFERENCES "IdentityVersion"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IdentityProposal" ADD CONSTRAINT "IdentityProposal_resultVersionId_fkey" FOREIGN KEY ("resultVersionId") REFERENCES "IdentityVersion"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Task" ADD CONSTRAINT "Task_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Task" ADD CONSTRAINT "Task_parentTaskId_fkey" FOREIGN KEY ("parentTaskId") REFERENCES "Task"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TaskEvent" ADD CONSTRAINT "TaskEvent_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Memory" ADD CONSTRAINT "Memory_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Schedule" ADD CONSTRAINT "Schedule_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ScheduleRun" ADD CONSTRAINT "ScheduleRun_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "Schedule"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentTool" ADD CONSTRAINT "AgentTool_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentToolVersion" ADD CONSTRAINT "AgentToolVersion_toolId_fkey" FOREIGN KEY ("toolId") REFERENCES "AgentTool"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BuiltinToolChange" ADD CONSTRAINT "BuiltinToolChange_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Keyword search over memories (not expressible in schema.prisma): a stored
-- tsvector over Memory(name, content) with English stemming (the PostgreSQL
-- counterpart of the SQLite store's FTS5 table with Porter stemming), kept in
-- step by PostgreSQL itself, and its GIN index.
ALTER TABLE "Memory" ADD COLUMN "searchVector" tsvector
    GENERATED ALWAYS AS (to_tsvector('english', coalesce("name", '') || ' ' || coalesce("content", ''))) STORED;
CREATE INDEX "Memory_searchVector_idx" ON "Memory" USING GIN ("searchVector");
