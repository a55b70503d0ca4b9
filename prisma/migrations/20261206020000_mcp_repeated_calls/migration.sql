-- MCP gateway, repeated calls (issue #26, docs/decisions/023-repeated-calls-and-pinned-tools.md): the call a default
-- key stands for, the earlier operation a repeat links to, and when a call's final answer was delivered. New nullable
-- columns only: operations planned before keep their keys, and a repeat of them is answered as before.
-- AlterTable
ALTER TABLE "Operation" ADD COLUMN "callKey" TEXT;
ALTER TABLE "Operation" ADD COLUMN "deliveredAt" DATETIME;
ALTER TABLE "Operation" ADD COLUMN "repeatOf" TEXT;

-- CreateIndex
CREATE INDEX "Operation_callKey_idempotencyKey_idx" ON "Operation"("callKey", "idempotencyKey");
