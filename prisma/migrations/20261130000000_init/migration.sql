-- CreateTable
CREATE TABLE "ToolContract" (
    "tool" TEXT NOT NULL PRIMARY KEY,
    "currentVersion" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ContractVersion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tool" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "effect" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "reconcile" TEXT,
    "approval" TEXT NOT NULL,
    "maxAttempts" INTEGER NOT NULL,
    "backoffBaseMs" INTEGER NOT NULL,
    "backoffMaxMs" INTEGER NOT NULL,
    "keyRetentionMs" INTEGER,
    "dependency" TEXT,
    "description" TEXT,
    "bodyHash" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ContractVersion_tool_fkey" FOREIGN KEY ("tool") REFERENCES "ToolContract" ("tool") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Operation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tool" TEXT NOT NULL,
    "contractVersion" INTEGER NOT NULL,
    "effect" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "argsJson" TEXT NOT NULL,
    "argsHash" TEXT NOT NULL,
    "runId" TEXT,
    "agentId" TEXT,
    "phase" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "evidence" TEXT NOT NULL DEFAULT 'none',
    "evidenceJson" TEXT,
    "providerId" TEXT,
    "approvedAttempt" INTEGER,
    "approvalRequestedBy" TEXT,
    "rejectionReason" TEXT,
    "lastError" TEXT,
    "firstDispatchedAt" DATETIME,
    "notBefore" DATETIME,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "fence" INTEGER NOT NULL DEFAULT 0,
    "version" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Attempt" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "operationId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "workerId" TEXT NOT NULL,
    "fence" INTEGER NOT NULL,
    "result" TEXT NOT NULL,
    "errorKind" TEXT,
    "httpStatus" INTEGER,
    "errorMessage" TEXT,
    "backoffMs" INTEGER NOT NULL DEFAULT 0,
    "providerId" TEXT,
    "dispatchedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    CONSTRAINT "Attempt_operationId_fkey" FOREIGN KEY ("operationId") REFERENCES "Operation" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "subjectType" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT NOT NULL,
    "onBehalfOf" TEXT,
    "action" TEXT NOT NULL,
    "fromPhase" TEXT,
    "toPhase" TEXT,
    "reason" TEXT,
    "data" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Dependency" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "state" TEXT NOT NULL DEFAULT 'closed',
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "openedAt" DATETIME,
    "forced" TEXT,
    "forcedReason" TEXT,
    "probeInFlight" BOOLEAN NOT NULL DEFAULT false,
    "failureThreshold" INTEGER NOT NULL DEFAULT 5,
    "cooldownMs" INTEGER NOT NULL DEFAULT 30000,
    "lastFailureAt" DATETIME,
    "version" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "failedSignIns" INTEGER NOT NULL DEFAULT 0,
    "lockedUntil" DATETIME,
    "disabledAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "ContractVersion_tool_version_key" ON "ContractVersion"("tool", "version");

-- CreateIndex
CREATE INDEX "Operation_phase_id_idx" ON "Operation"("phase", "id");

-- CreateIndex
CREATE INDEX "Operation_tool_id_idx" ON "Operation"("tool", "id");

-- CreateIndex
CREATE INDEX "Operation_effect_id_idx" ON "Operation"("effect", "id");

-- CreateIndex
CREATE INDEX "Operation_runId_id_idx" ON "Operation"("runId", "id");

-- CreateIndex
CREATE INDEX "Operation_agentId_id_idx" ON "Operation"("agentId", "id");

-- CreateIndex
CREATE INDEX "Operation_phase_leaseExpiresAt_idx" ON "Operation"("phase", "leaseExpiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Operation_tool_idempotencyKey_key" ON "Operation"("tool", "idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "Attempt_operationId_number_key" ON "Attempt"("operationId", "number");

-- CreateIndex
CREATE INDEX "AuditEvent_subjectType_subjectId_id_idx" ON "AuditEvent"("subjectType", "subjectId", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_action_id_idx" ON "AuditEvent"("action", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_createdAt_idx" ON "AuditEvent"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_hash_key" ON "ApiKey"("hash");

