-- Trace ids (issue #30): the W3C trace id of the call that planned an operation and of the call that dispatched each
-- attempt, so the console links them to the agent's trace.
-- AlterTable
ALTER TABLE "Operation" ADD COLUMN "traceId" TEXT;

-- AlterTable
ALTER TABLE "Attempt" ADD COLUMN "traceId" TEXT;
