-- An operation command's writes and its audit events go to PostgreSQL as one statement (decision 011). These functions
-- run inside it: opledger_append_audit extends the audit hash chain exactly as lib/ledger/audit.ts does (the hash of
-- each event is sha256 of the previous hash, "\n[", its seq, "," and the rest of its fields as JSON, which the caller
-- computes: lib/ledger/audit-chain.ts eventHashTail), and opledger_expect_rows aborts the statement when a conditional
-- write matched no row, so nothing of the command is written. The SQLite twin of this migration is empty.
CREATE FUNCTION opledger_append_audit(events jsonb) RETURNS integer
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
        INSERT INTO "AuditEvent" ("id", "subjectType", "subjectId", "actorType", "actorId", "onBehalfOf", "action",
                                  "fromPhase", "toPhase", "reason", "data", "createdAt", "seq", "hash")
        VALUES (e->>'id', e->>'subjectType', e->>'subjectId', e->>'actorType', e->>'actorId', e->>'onBehalfOf', e->>'action',
                e->>'fromPhase', e->>'toPhase', e->>'reason', e->>'data',
                ((e->>'createdAt')::timestamptz AT TIME ZONE 'UTC'), last_seq, last_hash);
    END LOOP;
    UPDATE "AuditChain" SET "hash" = last_hash WHERE "id" = 1;
    RETURN n;
END;
$$;

CREATE FUNCTION opledger_expect_rows(counts bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM unnest(counts) AS c WHERE c <> 1) THEN
        RAISE EXCEPTION 'opledger: a conditional write matched no row' USING ERRCODE = 'OPL01';
    END IF;
END;
$$;
