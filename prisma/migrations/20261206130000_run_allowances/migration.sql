-- A run's allowance (issue #31): the deadline, retries and backoff an agent gave one run.
-- CreateTable
CREATE TABLE "RunAllowance" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "keyId" TEXT NOT NULL,
    "deadlineAt" DATETIME,
    "maxRetries" INTEGER,
    "maxBackoffMs" INTEGER,
    "retriesUsed" INTEGER NOT NULL DEFAULT 0,
    "backoffUsedMs" INTEGER NOT NULL DEFAULT 0,
    "exhaustedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
