// Prisma-side writes (contracts, people, API keys) with their audit records: one transaction, run again on a write
// conflict, its events appended last by the engine's one appender, the same one the operation commands' store uses.
import type { Prisma } from "@/lib/platform/generated/prisma/client";
import type { Engine } from "@/lib/platform/db/prisma";
import type { Ledger } from "@/lib/ledger/ledger";
import { auditEventJson } from "@/lib/ledger/store/postgres/one-statement-tx";
import type { Executor, Row } from "@/lib/ledger/store/sql";
import { BatchAudit } from "@/lib/ledger/store/sqlite/batch-audit";
import { sqliteCodec } from "@/lib/ledger/store/sqlite/sqlite-store";
import { withWriteRetry } from "../write-retry";
import type { AuditInput } from "./append";

export type AuditedTx = Prisma.TransactionClient;

/** Records events to be appended when the work succeeds, in the same transaction. */
export type Audit = (events: AuditInput[]) => void;

/**
 * Prisma's SQLite adapter begins deferred: a transaction that reads first could not write once another process had
 * committed (SQLITE_BUSY_SNAPSHOT, no busy wait), and a busy server commits every few milliseconds, so the CLI's writes
 * could fail every try. A first statement that writes nothing takes the write lock at once, waiting up to busy_timeout
 * for it, as the ledger store's BEGIN IMMEDIATE does.
 */
const TAKE_WRITE_LOCK = `UPDATE "AuditChain" SET "seq" = "seq" WHERE 0`;

export function auditedTransaction<T>(ledger: Ledger, work: (tx: AuditedTx, audit: Audit) => Promise<T>): Promise<T> {
  return withWriteRetry(() =>
    ledger.db.$transaction(async (tx) => {
      if (ledger.engine === "sqlite") await tx.$executeRawUnsafe(TAKE_WRITE_LOCK);
      const events: AuditInput[] = [];
      const result = await work(tx, (more) => void events.push(...more));
      // Last: moving the chain's head locks it (the write lock on SQLite, a row lock on PostgreSQL) until the end.
      await appendAuditEvents(ledger.engine, tx, events);
      return result;
    }),
  );
}

function prismaExecutor(tx: AuditedTx): Executor {
  return {
    rows: (sql, params) => tx.$queryRawUnsafe<Row[]>(sql, ...params),
    run: (sql, params) => tx.$executeRawUnsafe(sql, ...params),
  };
}

async function appendAuditEvents(engine: Engine, tx: AuditedTx, events: AuditInput[]): Promise<void> {
  if (events.length === 0) return;
  if (engine === "postgresql") {
    await tx.$queryRawUnsafe(`SELECT opledger_append_audit($1::jsonb)`, JSON.stringify(events.map(auditEventJson)));
    return;
  }
  const audit = new BatchAudit(prismaExecutor(tx), sqliteCodec);
  await audit.append(events);
  await audit.write();
}
