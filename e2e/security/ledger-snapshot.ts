// A fingerprint of the part of the ledger a security spec could touch, read through the API so it works on SQLite and
// PostgreSQL alike.
import { createHash } from "node:crypto";
import { expect, type APIRequestContext } from "@playwright/test";
import { api } from "../fixtures/api";

export interface SnapshotScope {
  /** Operations whose full detail (attempts and audit trail included) must not change. */
  operationIds: string[];
  /** Tools whose contract and whose list of operations must not change. */
  tools: string[];
  /** Audit actors (user emails, API key actor ids) who must not have written anything new, anywhere. */
  actorIds: string[];
}

export interface LedgerSnapshot {
  counts: Record<string, number>;
  hash: string;
  parts: Record<string, unknown>;
}

/**
 * The gate's decision is computed at read time (it names retry delays), so it is left out; every stored field stays in.
 */
function stored(operation: unknown): unknown {
  const { decision: _decision, ...rest } = operation as Record<string, unknown>;
  return rest;
}

async function okJson<T>(request: APIRequestContext, url: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await request.get(url, { headers, failOnStatusCode: false });
  const text = await response.text();
  expect(response.status(), `snapshot read ${url}: ${text.slice(0, 300)}`).toBe(200);
  return JSON.parse(text) as T;
}

/** Every audit event matching the console audit route's filter, all pages. */
async function auditEvents(session: APIRequestContext, filter: Record<string, string>): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ ...filter, limit: "200", ...(cursor ? { cursor } : {}) });
    const page: { items: unknown[]; nextCursor: string | null } = await okJson(session, `/api/console/audit?${query}`);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/**
 * `keyed` reads /api/v1 with the bootstrap key; `session` is a signed-in console context (the audit log is a console
 * route). Counts name what was compared; the hash covers all of it.
 */
export async function snapshotLedger(
  keyed: APIRequestContext,
  session: APIRequestContext,
  scope: SnapshotScope,
): Promise<LedgerSnapshot> {
  const client = api(keyed);
  const bearer = { authorization: `Bearer ${client.key ?? ""}` };
  const parts: Record<string, unknown> = {};
  const counts: Record<string, number> = { operations: 0, attempts: 0, auditEvents: 0, contractVersions: 0 };
  for (const id of scope.operationIds) {
    const detail = await okJson<{ attempts: unknown[]; audit: unknown[] }>(
      keyed,
      `/api/v1/operations/${encodeURIComponent(id)}`,
      bearer,
    );
    parts[`operation ${id}`] = stored(detail);
    counts.attempts! += detail.attempts.length;
    counts.auditEvents! += detail.audit.length;
  }
  for (const tool of scope.tools) {
    const contract = await okJson<{ version: number }>(keyed, `/api/v1/contracts/${encodeURIComponent(tool)}`, bearer);
    const ops = await okJson<{ items: unknown[] }>(
      keyed,
      `/api/v1/operations?${new URLSearchParams({ tool, limit: "200" })}`,
      bearer,
    );
    const contractAudit = await auditEvents(session, { subjectType: "contract", subjectId: tool });
    parts[`contract ${tool}`] = { contract, audit: contractAudit };
    parts[`operations of ${tool}`] = ops.items.map(stored);
    counts.contractVersions! += contract.version;
    counts.operations! += ops.items.length;
    counts.auditEvents! += contractAudit.length;
  }
  for (const actorId of scope.actorIds) {
    const events = await auditEvents(session, { actorId });
    parts[`written by ${actorId}`] = events;
    counts.auditEvents! += events.length;
  }
  const hash = createHash("sha256").update(JSON.stringify(parts)).digest("hex");
  return { counts, hash, parts };
}

/** Fails with the parts that differ, not just two hashes. */
export function expectUnchanged(before: LedgerSnapshot, after: LedgerSnapshot): void {
  const changed = Object.keys({ ...before.parts, ...after.parts }).filter(
    (k) => JSON.stringify(before.parts[k]) !== JSON.stringify(after.parts[k]),
  );
  const part = (snapshot: LedgerSnapshot, k: string) => JSON.stringify(snapshot.parts[k])?.slice(0, 600);
  expect(
    changed,
    `ledger changed: ${changed.map((k) => `${k}\n  before ${part(before, k)}\n  after  ${part(after, k)}`).join("\n")}`,
  ).toEqual([]);
  expect(after.counts).toEqual(before.counts);
  expect(after.hash).toBe(before.hash);
}
