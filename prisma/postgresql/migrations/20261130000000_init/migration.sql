-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "ToolContract" (
    "tool" TEXT NOT NULL,
    "currentVersion" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ToolContract_pkey" PRIMARY KEY ("tool")
);

-- CreateTable
CREATE TABLE "ContractVersion" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ContractVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Operation" (
    "id" TEXT NOT NULL,
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
    "firstDispatchedAt" TIMESTAMP(3),
    "notBefore" TIMESTAMP(3),
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "fence" INTEGER NOT NULL DEFAULT 0,
    "version" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Operation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Attempt" (
    "id" TEXT NOT NULL,
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
    "dispatchedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Attempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Dependency" (
    "name" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'closed',
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "openedAt" TIMESTAMP(3),
    "forced" TEXT,
    "forcedReason" TEXT,
    "probeInFlight" BOOLEAN NOT NULL DEFAULT false,
    "failureThreshold" INTEGER NOT NULL DEFAULT 5,
    "cooldownMs" INTEGER NOT NULL DEFAULT 30000,
    "lastFailureAt" TIMESTAMP(3),
    "version" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Dependency_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "failedSignIns" INTEGER NOT NULL DEFAULT 0,
    "lockedUntil" TIMESTAMP(3),
    "disabledAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "ContractVersion" ADD CONSTRAINT "ContractVersion_tool_fkey" FOREIGN KEY ("tool") REFERENCES "ToolContract"("tool") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Attempt" ADD CONSTRAINT "Attempt_operationId_fkey" FOREIGN KEY ("operationId") REFERENCES "Operation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

