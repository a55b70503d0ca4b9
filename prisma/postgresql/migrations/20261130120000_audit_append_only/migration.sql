-- The audit trail is append-only: the database itself refuses UPDATE, DELETE and TRUNCATE of "AuditEvent", whoever sends them.
-- Written by hand (Prisma's schema language has no triggers); prisma/migrations/20261130120000_audit_append_only is the SQLite twin.
CREATE FUNCTION "AuditEvent_refuse_change"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'AuditEvent is append-only: % refused', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER "AuditEvent_append_only"
    BEFORE UPDATE OR DELETE ON "AuditEvent"
    FOR EACH ROW EXECUTE FUNCTION "AuditEvent_refuse_change"();

CREATE TRIGGER "AuditEvent_no_truncate"
    BEFORE TRUNCATE ON "AuditEvent"
    FOR EACH STATEMENT EXECUTE FUNCTION "AuditEvent_refuse_change"();
