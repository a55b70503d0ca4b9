-- A run's allowance (issue #31): the deadline, retries and backoff an agent gave one run.
-- CreateTable
CREATE TABLE "RunAllowance" (
    "runId" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "deadlineAt" TIMESTAMP(3),
    "maxRetries" INTEGER,
    "maxBackoffMs" INTEGER,
    "retriesUsed" INTEGER NOT NULL DEFAULT 0,
    "backoffUsedMs" INTEGER NOT NULL DEFAULT 0,
    "exhaustedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RunAllowance_pkey" PRIMARY KEY ("runId")
);
