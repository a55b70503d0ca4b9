// A bulk action's preview (a dry run): the exact set, grouped by tool and effect class, what each operation will get
// and what is skipped and why, frozen for PREVIEW_TTL_MS so the run acts on exactly what the person saw.
import type { ContractVersion } from "@/lib/platform/generated/prisma/client";
import { env } from "@/lib/platform/config/env";
import type { Ledger } from "@/lib/ledger/ledger";
import type { DecisionAction } from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import { requirePerson } from "../commands/authority";
import { currentLookupSettings } from "../commands/auto-reconcile";
import { keyOwnersOf } from "../commands/key-owners";
import { auditedTransaction } from "../audit/audited-transaction";
import { newId } from "../ids";
import { bulkPrincipal, requireBulkOperator } from "./principal";
import { PREVIEW_TTL_MS, type BulkActionName, type BulkPreviewRequest } from "./request";
import { selectOperations } from "./select";
import { SKIP_REASONS, type SkipReason } from "./skip-reasons";
import { grantsAttempt, verdictFor, type Verdict, type WillDo } from "./verdict";

export interface PreviewItem {
  id: string;
  tool: string;
  effect: string;
  phase: string;
  willDo: WillDo;
  /** What the gate decides right after (null for a lookup: it depends on what the provider says). */
  then: DecisionAction | null;
}

export interface SkippedItem {
  id: string;
  tool: string;
  effect: string;
  phase: string;
  why: SkipReason;
  explanation: string;
}

export interface PreviewGroup {
  tool: string;
  effect: string;
  /** Operations of this tool and class that will be acted on. */
  acting: number;
  skipped: number;
}

export interface BulkPreview {
  previewId: string;
  action: BulkActionName;
  /** Every operation the request matched: acted on plus skipped. */
  matched: number;
  expiresAt: string;
  byTool: Record<string, number>;
  byClass: Record<string, number>;
  groups: PreviewGroup[];
  items: PreviewItem[];
  skipped: SkippedItem[];
  /** Before any grant of attempts over NON_RETRYABLE tools: how many effects may happen again. */
  warning: { code: "non_retryable_effects"; count: number; message: string } | null;
}

async function contractsOf(ledger: Ledger, keys: { tool: string; version: number }[]) {
  const unique = [...new Map(keys.map((k) => [`${k.tool}@${k.version}`, k])).values()];
  const rows: ContractVersion[] = [];
  for (let i = 0; i < unique.length; i += 200) {
    rows.push(...(await ledger.db.contractVersion.findMany({ where: { OR: unique.slice(i, i + 200) } })));
  }
  return new Map(rows.map((c) => [`${c.tool}@${c.version}`, c]));
}

async function lookupToolsOf(ledger: Ledger, request: BulkPreviewRequest, tools: string[]): Promise<Set<string>> {
  if (request.action !== "lookup_reconcile") return new Set();
  const settings = await currentLookupSettings(ledger, tools);
  return new Set([...settings].filter(([, s]) => s.method === "lookup" && s.urlTemplate).map(([tool]) => tool));
}

function count(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

function warningOf(request: BulkPreviewRequest, items: PreviewItem[]): BulkPreview["warning"] {
  if (!grantsAttempt(request)) return null;
  const n = items.filter((i) => i.effect === "NON_RETRYABLE").length;
  if (n === 0) return null;
  return {
    code: "non_retryable_effects",
    count: n,
    message:
      `${n.toLocaleString("en")} NON_RETRYABLE operation${n === 1 ? "" : "s"} will be granted another attempt: ` +
      `each effect may happen again (a second charge, a second email).`,
  };
}

/** Rows are written in chunks, so neither engine meets its bound-parameter limit. */
const ITEM_CHUNK = 500;

/**
 * Previews `request` as `actor`: nothing is acted on. The preview is stored (with its items and each operation's row
 * version) for PREVIEW_TTL_MS; only the same principal may run it.
 */
export async function previewBulk(
  ledger: Ledger,
  request: BulkPreviewRequest,
  actor: Actor,
  now: Date,
  options: { fourEyes: boolean } = { fourEyes: env().OPLEDGER_FOUR_EYES === "on" },
): Promise<BulkPreview> {
  requireBulkOperator(actor);
  if (grantsAttempt(request)) requirePerson(actor, "Granting attempts in bulk");
  const { operations, missing } = await selectOperations(ledger, request);
  const contracts = await contractsOf(
    ledger,
    operations.map((op) => ({ tool: op.tool, version: op.contractVersion })),
  );
  const lookupTools = await lookupToolsOf(ledger, request, [...new Set(operations.map((op) => op.tool))]);
  const keyOwners = await keyOwnersOf(
    ledger,
    operations.flatMap((op) => (op.plannedByKeyId ? [op.plannedByKeyId] : [])),
  );
  const ctx = { request, actor, now, fourEyes: options.fourEyes, lookupTools, keyOwners };

  const items: PreviewItem[] = [];
  const skipped: SkippedItem[] = [];
  const rows: {
    operationId: string;
    tool: string;
    effect: string;
    phase: string;
    seenVersion: number;
    verdict: Verdict;
  }[] = [];
  const groups = new Map<string, PreviewGroup>();
  for (const op of operations) {
    const contract = contracts.get(`${op.tool}@${op.contractVersion}`);
    const verdict: Verdict = contract ? verdictFor(op, contract, ctx) : { skip: true, why: "not_found" };
    rows.push({
      operationId: op.id,
      tool: op.tool,
      effect: op.effect,
      phase: op.phase,
      seenVersion: op.version,
      verdict,
    });
    const base = { id: op.id, tool: op.tool, effect: op.effect, phase: op.phase };
    if (verdict.skip) skipped.push({ ...base, why: verdict.why, explanation: SKIP_REASONS[verdict.why] });
    else items.push({ ...base, willDo: verdict.willDo, then: verdict.then });
    const key = `${op.tool}\u0000${op.effect}`;
    const group = groups.get(key) ?? { tool: op.tool, effect: op.effect, acting: 0, skipped: 0 };
    if (verdict.skip) group.skipped++;
    else group.acting++;
    groups.set(key, group);
  }
  for (const id of missing) {
    rows.push({
      operationId: id,
      tool: "",
      effect: "",
      phase: "",
      seenVersion: -1,
      verdict: { skip: true, why: "not_found" },
    });
    skipped.push({ id, tool: "", effect: "", phase: "", why: "not_found", explanation: SKIP_REASONS.not_found });
  }

  const previewId = newId();
  const expiresAt = new Date(now.getTime() + PREVIEW_TTL_MS);
  const asked = { ...(request.ids ? { ids: request.ids } : { filter: request.filter ?? {} }) };
  await auditedTransaction(ledger, async (tx, audit) => {
    await tx.bulkAction.create({
      data: {
        id: previewId,
        action: request.action,
        requestJson: JSON.stringify(request),
        reason: request.reason ?? "",
        createdBy: bulkPrincipal(actor),
        actorJson: JSON.stringify(actor),
        status: "previewed",
        matched: rows.length,
        previewExpiresAt: expiresAt,
        createdAt: now,
      },
    });
    for (let i = 0; i < rows.length; i += ITEM_CHUNK) {
      await tx.bulkItem.createMany({
        data: rows.slice(i, i + ITEM_CHUNK).map((row, j) => ({
          bulkId: previewId,
          position: i + j,
          operationId: row.operationId,
          tool: row.tool,
          effect: row.effect,
          phase: row.phase,
          seenVersion: row.seenVersion,
          willDo: row.verdict.skip ? row.verdict.why : row.verdict.willDo,
          skip: row.verdict.skip,
        })),
      });
    }
    audit([
      {
        subjectType: "bulk",
        subjectId: previewId,
        actor,
        action: "bulk.previewed",
        reason: request.reason ?? null,
        data: { action: request.action, ...asked, matched: rows.length, acting: items.length, skipped: skipped.length },
        at: now,
      },
    ]);
  });

  const byTool: Record<string, number> = {};
  const byClass: Record<string, number> = {};
  for (const row of rows) {
    if (row.verdict.skip && row.verdict.why === "not_found") continue;
    count(byTool, row.tool);
    count(byClass, row.effect);
  }
  return {
    previewId,
    action: request.action,
    matched: rows.length,
    expiresAt: expiresAt.toISOString(),
    byTool,
    byClass,
    groups: [...groups.values()].sort((a, b) => a.tool.localeCompare(b.tool) || a.effect.localeCompare(b.effect)),
    items,
    skipped,
    warning: warningOf(request, items),
  };
}
