-- The audit trail is append-only: the database itself refuses UPDATE and DELETE of "AuditEvent", whoever sends them.
-- Written by hand (Prisma's schema language has no triggers); prisma/postgresql/migrations/20261130120000_audit_append_only is the PostgreSQL twin.
CREATE TRIGGER "AuditEvent_no_update"
BEFORE UPDATE ON "AuditEvent"
BEGIN
    SELECT RAISE(ABORT, 'AuditEvent is append-only: UPDATE refused');
END;

CREATE TRIGGER "AuditEvent_no_delete"
BEFORE DELETE ON "AuditEvent"
BEGIN
    SELECT RAISE(ABORT, 'AuditEvent is append-only: DELETE refused');
END;
