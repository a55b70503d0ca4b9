-- Authority (issue #16): the PostgreSQL twin of the SQLite migration of the same name, and opledger_append_audit
-- stores the actor's label (hashed with the event, lib/ledger/audit/chain.ts).
-- AlterTable
ALTER TABLE "ContractVersion" ADD COLUMN     "approvalTtlMs" INTEGER,
ADD COLUMN     "approvals" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "Operation" ADD COLUMN     "approvalExpiresAt" TIMESTAMP(3),
ADD COLUMN     "approvers" TEXT,
ADD COLUMN     "plannedByKeyId" TEXT;

-- AlterTable
ALTER TABLE "AuditEvent" ADD COLUMN     "actorLabel" TEXT;

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "sessionVersion" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "ssoIssuer" TEXT,
ADD COLUMN     "ssoSubject" TEXT;

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "bootstrap" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "ownerUserId" TEXT;

-- CreateTable
CREATE TABLE "AuditCheckpoint" (
    "seq" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AuditCheckpoint_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "RateLimiterFlexible" (
    "key" TEXT NOT NULL,
    "points" INTEGER NOT NULL,
    "expire" TIMESTAMP(3),

    CONSTRAINT "RateLimiterFlexible_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "Operation_plannedByKeyId_id_idx" ON "Operation"("plannedByKeyId", "id");

-- CreateIndex
CREATE INDEX "Operation_phase_approvalExpiresAt_id_idx" ON "Operation"("phase", "approvalExpiresAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "User_ssoIssuer_ssoSubject_key" ON "User"("ssoIssuer", "ssoSubject");

UPDATE "ApiKey" SET "bootstrap" = true WHERE "name" = 'bootstrap (OPLEDGER_BOOTSTRAP_API_KEY)';
UPDATE "ApiKey" SET "ownerUserId" = (SELECT "User"."id" FROM "User" WHERE "User"."email" = "ApiKey"."createdBy")
  WHERE "bootstrap" = false AND ("scopes" LIKE '%operator%' OR "scopes" LIKE '%admin%');
UPDATE "Operation" SET "plannedByKeyId" = (
  SELECT "ApiKey"."id" FROM "AuditEvent" JOIN "ApiKey" ON "AuditEvent"."actorId" = "ApiKey"."name" || ' (' || "ApiKey"."prefix" || '…)'
  WHERE "AuditEvent"."subjectType" = 'operation' AND "AuditEvent"."subjectId" = "Operation"."id"
    AND "AuditEvent"."action" = 'operation.planned' AND "AuditEvent"."actorType" = 'api_key'
  LIMIT 1);
-- The principal that planned an operation never approves it: the planning key, or the person it is bound to.
UPDATE "Operation" SET "approvalRequestedBy" = COALESCE(
  (SELECT 'user:' || "ApiKey"."ownerUserId" FROM "ApiKey"
     WHERE "ApiKey"."id" = "Operation"."plannedByKeyId" AND "ApiKey"."ownerUserId" IS NOT NULL),
  'api_key:' || "Operation"."plannedByKeyId")
  WHERE "approvalRequestedBy" IS NULL AND "plannedByKeyId" IS NOT NULL;
UPDATE "Operation" SET "approvalRequestedBy" = COALESCE(
  (SELECT 'user:' || "User"."id" FROM "User" WHERE "User"."email" = "Operation"."approvalRequestedBy"),
  (SELECT 'api_key:' || "ApiKey"."id" FROM "ApiKey"
     WHERE "ApiKey"."name" || ' (' || "ApiKey"."prefix" || '…)' = "Operation"."approvalRequestedBy"),
  "approvalRequestedBy")
  WHERE "approvalRequestedBy" IS NOT NULL;
UPDATE "Operation" SET "approvalExpiresAt" = "updatedAt" + interval '24 hours' WHERE "phase" = 'AWAITING_APPROVAL';

CREATE OR REPLACE FUNCTION opledger_append_audit(events jsonb) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer := jsonb_array_length(events);
    last_seq integer;
    last_hash text;
    e jsonb;
BEGIN
    -- Moving the head takes its row lock until the statement's transaction commits: appends never fork the chain.
    UPDATE "AuditChain" SET "seq" = "seq" + n WHERE "id" = 1 RETURNING "seq" - n, "hash" INTO last_seq, last_hash;
    FOR e IN SELECT value FROM jsonb_array_elements(events) LOOP
        last_seq := last_seq + 1;
        last_hash := encode(sha256(convert_to(last_hash || E'\n[' || last_seq || ',' || (e->>'tail'), 'UTF8')), 'hex');
        INSERT INTO "AuditEvent" ("id", "subjectType", "subjectId", "actorType", "actorId", "onBehalfOf", "actorLabel",
                                  "action", "fromPhase", "toPhase", "reason", "data", "createdAt", "seq", "hash")
        VALUES (e->>'id', e->>'subjectType', e->>'subjectId', e->>'actorType', e->>'actorId', e->>'onBehalfOf',
                e->>'actorLabel', e->>'action', e->>'fromPhase', e->>'toPhase', e->>'reason', e->>'data',
                ((e->>'createdAt')::timestamptz AT TIME ZONE 'UTC'), last_seq, last_hash);
    END LOOP;
    UPDATE "AuditChain" SET "hash" = last_hash WHERE "id" = 1;
    RETURN n;
END;
$$;
