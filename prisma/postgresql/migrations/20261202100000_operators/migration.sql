-- Operators at scale (issue #18): replays, search terms, tunable breakers (versioned settings), webhooks and their
-- deliveries, the audit cursor the notifier reads from, and bulk actions (the frozen preview and its items).
-- AlterTable
ALTER TABLE "ContractVersion" ADD COLUMN     "unknownAlertMs" INTEGER;

-- AlterTable
ALTER TABLE "Operation" ADD COLUMN     "replayOf" TEXT;

-- AlterTable
ALTER TABLE "Dependency" ADD COLUMN     "probeSuccesses" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "probes" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "settingsVersion" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "OperationSearchTerm" (
    "term" TEXT NOT NULL,
    "operationId" TEXT NOT NULL,

    CONSTRAINT "OperationSearchTerm_pkey" PRIMARY KEY ("term","operationId")
);

-- CreateTable
CREATE TABLE "DependencySettings" (
    "id" TEXT NOT NULL,
    "dependency" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "failureThreshold" INTEGER NOT NULL,
    "cooldownMs" INTEGER NOT NULL,
    "probes" INTEGER NOT NULL,
    "author" TEXT NOT NULL,
    "reason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DependencySettings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Webhook" (
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "format" TEXT NOT NULL DEFAULT 'json',
    "version" INTEGER NOT NULL DEFAULT 0,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Webhook_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "webhook" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "eventKey" TEXT NOT NULL,
    "payloadJson" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "lastStatus" INTEGER,
    "lastError" TEXT,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditCursor" (
    "name" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,

    CONSTRAINT "AuditCursor_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "BulkAction" (
    "id" TEXT NOT NULL,
    "jobId" TEXT,
    "action" TEXT NOT NULL,
    "requestJson" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "actorJson" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "matched" INTEGER NOT NULL,
    "acted" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "stale" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "previewExpiresAt" TIMESTAMP(3) NOT NULL,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "version" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "BulkAction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BulkItem" (
    "bulkId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "operationId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "effect" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "seenVersion" INTEGER NOT NULL,
    "willDo" TEXT NOT NULL,
    "skip" BOOLEAN NOT NULL,
    "result" TEXT,
    "detail" TEXT,

    CONSTRAINT "BulkItem_pkey" PRIMARY KEY ("bulkId","position")
);

-- CreateIndex
CREATE INDEX "OperationSearchTerm_operationId_idx" ON "OperationSearchTerm"("operationId");

-- CreateIndex
CREATE UNIQUE INDEX "DependencySettings_dependency_version_key" ON "DependencySettings"("dependency", "version");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_webhook_createdAt_idx" ON "WebhookDelivery"("webhook", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_webhook_eventKey_key" ON "WebhookDelivery"("webhook", "eventKey");

-- CreateIndex
CREATE UNIQUE INDEX "BulkAction_jobId_key" ON "BulkAction"("jobId");

-- CreateIndex
CREATE INDEX "BulkAction_status_leaseExpiresAt_idx" ON "BulkAction"("status", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "BulkItem_bulkId_result_idx" ON "BulkItem"("bulkId", "result");

-- CreateIndex
CREATE INDEX "Operation_idempotencyKey_idx" ON "Operation"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Operation_providerId_idx" ON "Operation"("providerId");

-- CreateIndex
CREATE INDEX "Operation_replayOf_idx" ON "Operation"("replayOf");

-- AddForeignKey
ALTER TABLE "BulkItem" ADD CONSTRAINT "BulkItem_bulkId_fkey" FOREIGN KEY ("bulkId") REFERENCES "BulkAction"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

