// The events no single audit record marks: an operation UNKNOWN for longer than its contract allows (unknowns.aged),
// and a tool whose retries jumped (retries.spike). Each is queued once per webhook by its event key.
import type { Ledger } from "@/lib/ledger/ledger";
import { retrySpikes } from "@/lib/ledger/reads/retry-spikes";
import { operationData, spikeData } from "./event-payload";
import { deliveryRows, subscribers, type QueuedEvent, type Subscribers } from "./enqueue";
import { DELIVERY_LOG_RETENTION_MS } from "./retention";

/** unknowns.aged when the contract sets no unknownAlertMs. */
export const DEFAULT_UNKNOWN_ALERT_MS = 15 * 60_000;
const PAGE = 200;

/** The keys, of those given, that some subscriber of `type` has not been queued yet. */
async function unqueuedKeys(ledger: Ledger, keys: string[], names: string[]): Promise<Set<string>> {
  if (keys.length === 0 || names.length === 0) return new Set();
  const existing = await ledger.db.webhookDelivery.findMany({
    where: { eventKey: { in: keys }, webhook: { in: names } },
    select: { eventKey: true },
  });
  const count = new Map<string, number>();
  for (const d of existing) count.set(d.eventKey, (count.get(d.eventKey) ?? 0) + 1);
  return new Set(keys.filter((k) => (count.get(k) ?? 0) < names.length));
}

async function insertMissing(ledger: Ledger, queued: QueuedEvent[], subs: Subscribers, now: Date): Promise<number> {
  const rows = deliveryRows(queued, subs, now);
  if (rows.length === 0) return 0;
  const existing = await ledger.db.webhookDelivery.findMany({
    where: { eventKey: { in: [...new Set(rows.map((r) => r.eventKey))] } },
    select: { webhook: true, eventKey: true },
  });
  const seen = new Set(existing.map((d) => `${d.webhook}\n${d.eventKey}`));
  const fresh = rows.filter((r) => !seen.has(`${r.webhook}\n${r.eventKey}`));
  if (fresh.length === 0) return 0;
  // Another instance may queue the same keys meanwhile: the unique (webhook, eventKey) keeps one, so insert one by one
  // and let a duplicate go.
  let inserted = 0;
  for (const row of fresh) {
    try {
      await ledger.db.webhookDelivery.create({ data: row });
      inserted += 1;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "P2002") throw error;
    }
  }
  return inserted;
}

/** Operations UNKNOWN for longer than their contract's unknownAlertMs (default 15 min), each announced once. */
export async function scanAgedUnknowns(ledger: Ledger, now: Date, subs?: Subscribers): Promise<number> {
  const subscribed = subs ?? (await subscribers(ledger));
  if (!subscribed.has("unknowns.aged")) return 0;
  const shortest = await ledger.db.contractVersion.aggregate({ _min: { unknownAlertMs: true } });
  const minAlertMs = Math.min(shortest._min.unknownAlertMs ?? DEFAULT_UNKNOWN_ALERT_MS, DEFAULT_UNKNOWN_ALERT_MS);
  const alertMs = new Map<string, number>();
  let queuedTotal = 0;
  let after: { updatedAt: Date; id: string } | null = null;
  for (;;) {
    const page: { id: string; tool: string; contractVersion: number; updatedAt: Date }[] =
      await ledger.db.operation.findMany({
        where: {
          phase: "UNKNOWN",
          // Not older than the delivery log keeps: such an operation was announced when it aged, and its delivery
          // may since have been pruned (retention.ts); announcing it again would be a duplicate.
          updatedAt: {
            gte: new Date(now.getTime() - DELIVERY_LOG_RETENTION_MS),
            lte: new Date(now.getTime() - minAlertMs),
          },
          ...(after
            ? { OR: [{ updatedAt: { gt: after.updatedAt } }, { updatedAt: after.updatedAt, id: { gt: after.id } }] }
            : {}),
        },
        orderBy: [{ updatedAt: "asc" }, { id: "asc" }],
        select: { id: true, tool: true, contractVersion: true, updatedAt: true },
        take: PAGE,
      });
    if (page.length === 0) break;
    const missing = page.filter((op) => !alertMs.has(`${op.tool}@${op.contractVersion}`));
    if (missing.length > 0) {
      const versions = await ledger.db.contractVersion.findMany({
        where: { OR: missing.map((op) => ({ tool: op.tool, version: op.contractVersion })) },
        select: { tool: true, version: true, unknownAlertMs: true },
      });
      for (const v of versions) alertMs.set(`${v.tool}@${v.version}`, v.unknownAlertMs ?? DEFAULT_UNKNOWN_ALERT_MS);
    }
    const aged = page.filter(
      (op) =>
        now.getTime() - op.updatedAt.getTime() >=
        (alertMs.get(`${op.tool}@${op.contractVersion}`) ?? DEFAULT_UNKNOWN_ALERT_MS),
    );
    const queued: QueuedEvent[] = [];
    const unqueued = await unqueuedKeys(
      ledger,
      aged.map((op) => `aged:${op.id}`),
      subscribed.get("unknowns.aged") ?? [],
    );
    for (const op of aged.filter((o) => unqueued.has(`aged:${o.id}`))) {
      queued.push({
        key: `aged:${op.id}`,
        event: { type: "unknowns.aged", timestamp: now.toISOString(), data: await operationData(ledger, op.id, now) },
      });
    }
    queuedTotal += await insertMissing(ledger, queued, subscribed, now);
    const last = page.at(-1);
    if (!last || page.length < PAGE) break;
    after = { updatedAt: last.updatedAt, id: last.id };
  }
  return queuedTotal;
}

/** retries.spike for each tool that spikes now, once per tool and five-minute window. */
export async function scanRetrySpikes(ledger: Ledger, now: Date, subs?: Subscribers): Promise<number> {
  const subscribed = subs ?? (await subscribers(ledger));
  if (!subscribed.has("retries.spike")) return 0;
  const spikes = await retrySpikes(ledger, now);
  const queued: QueuedEvent[] = spikes.map((spike) => ({
    key: `spike:${spike.tool}:${spike.windowStart.toISOString()}`,
    event: { type: "retries.spike", timestamp: now.toISOString(), data: spikeData(spike) },
  }));
  return insertMissing(ledger, queued, subscribed, now);
}
