-- Error rules per contract (issue #31): the ordered rules read before the global error table, as JSON.
-- AlterTable
ALTER TABLE "ContractVersion" ADD COLUMN "errorRules" TEXT;
