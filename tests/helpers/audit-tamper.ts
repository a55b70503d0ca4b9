// What an attacker with the database owner's rights does to the audit log: switch off the append-only triggers, change
// an event, recompute every hash after it and the head's, and switch the triggers back on, so that the chain inside the
// database is whole again.
import type { Db, Engine } from "@/lib/platform/db/prisma";
import { eventHash, GENESIS_HASH } from "@/lib/ledger/audit/chain";

/** The SQLite triggers as migration 20261130120000_audit_append_only creates them. */
const SQLITE_GUARDS = [
  `CREATE TRIGGER "AuditEvent_no_update" BEFORE UPDATE ON "AuditEvent" BEGIN SELECT RAISE(ABORT, 'AuditEvent is ` +
    "append-only: UPDATE refused'); END;",
  `CREATE TRIGGER "AuditEvent_no_delete" BEFORE DELETE ON "AuditEvent" BEGIN SELECT RAISE(ABORT, 'AuditEvent is ` +
    "append-only: DELETE refused'); END;",
];

async function withoutAppendOnlyGuards(db: Db, engine: Engine, work: () => Promise<void>): Promise<void> {
  if (engine === "postgresql") {
    await db.$executeRawUnsafe(`ALTER TABLE "AuditEvent" DISABLE TRIGGER "AuditEvent_append_only"`);
    await work();
    await db.$executeRawUnsafe(`ALTER TABLE "AuditEvent" ENABLE TRIGGER "AuditEvent_append_only"`);
    return;
  }
  await db.$executeRawUnsafe(`DROP TRIGGER "AuditEvent_no_update"`);
  await db.$executeRawUnsafe(`DROP TRIGGER "AuditEvent_no_delete"`);
  await work();
  for (const sql of SQLITE_GUARDS) await db.$executeRawUnsafe(sql);
}

/**
 * Gives event `seq` a new reason and rewrites the chain from there to the head consistently: afterwards the database
 * holds a whole chain that verify-audit alone accepts.
 */
export async function rewriteAuditChain(db: Db, engine: Engine, seq: number, reason: string): Promise<void> {
  await withoutAppendOnlyGuards(db, engine, async () => {
    const before = seq > 1 ? await db.auditEvent.findUniqueOrThrow({ where: { seq: seq - 1 } }) : null;
    let previous = before?.hash ?? GENESIS_HASH;
    const events = await db.auditEvent.findMany({ where: { seq: { gte: seq } }, orderBy: { seq: "asc" } });
    for (const event of events) {
      const changed = event.seq === seq ? { ...event, reason } : event;
      const hash = eventHash(previous, { ...changed, seq: changed.seq as number });
      await db.auditEvent.update({ where: { id: event.id }, data: { reason: changed.reason, hash } });
      previous = hash;
    }
    // The head keeps its seq, so its forward-only guard lets the new hash through.
    await db.auditChain.update({ where: { id: 1 }, data: { hash: previous } });
  });
}
