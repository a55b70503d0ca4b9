-- PostgreSQL only (decision 011): there, an operation command's writes and its audit events go to the server as one
-- statement, and opledger_append_audit extends the hash chain inside it. SQLite appends from lib/ledger/audit.ts.
-- This twin keeps both engines' migration histories the same.
SELECT 1;
