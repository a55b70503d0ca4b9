-- A contract's traceArguments (issue #30): spans may carry the call's argument and result values; off by default.
-- AlterTable
ALTER TABLE "ContractVersion" ADD COLUMN "traceArguments" BOOLEAN NOT NULL DEFAULT false;
