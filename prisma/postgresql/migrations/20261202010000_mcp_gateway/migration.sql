-- MCP gateway (issue #17): the contract's gateway rules, how an operation arrived and what observe mode saw, and the
-- upstream's confirmed answer kept for a repeated call. New nullable columns only: existing rows mean the defaults.
-- AlterTable
ALTER TABLE "ContractVersion" ADD COLUMN     "keyFrom" TEXT,
ADD COLUMN     "mode" TEXT,
ADD COLUMN     "timeoutMs" INTEGER,
ADD COLUMN     "toolError" TEXT;

-- AlterTable
ALTER TABLE "Operation" ADD COLUMN     "via" TEXT,
ADD COLUMN     "wouldHave" TEXT;

-- AlterTable
ALTER TABLE "Attempt" ADD COLUMN     "resultJson" TEXT;
