// Tool contracts: create and update (each change a new immutable version, audited), and read them back.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../actor";
import { actorLabel } from "../actor";
import type { ContractVersion } from "@/lib/platform/generated/prisma/client";
import { auditedTransaction, type AuditedTx } from "@/lib/ledger/audit/audited-transaction";
import { canonicalJson, sha256 } from "../canonical-json";
import type { ContractBody, ContractRules, ContractView } from "./contract-schema";
import { LedgerError } from "../errors";
import { newId } from "../ids";
import { contractView, GATEWAY_DEFAULTS } from "./contract-view";

/**
 * The rules as hashed and stored. The approval, gateway and error-rule fields appear only when they differ from their defaults, so a body
 * written before they existed keeps its hash (an identical PUT still keeps the version).
 */
function rulesOf(body: ContractBody): ContractRules {
  const {
    expectedVersion: _ignored,
    approvalTtlMs,
    unknownAlertMs,
    approvals,
    timeoutMs,
    keyFrom,
    toolError,
    mode,
    errorRules,
    traceArguments,
    ...rules
  } = body;
  return {
    ...rules,
    keyRetentionMs: rules.keyRetentionMs ?? null,
    dependency: rules.dependency ?? null,
    description: rules.description ?? null,
    ...(approvalTtlMs != null ? { approvalTtlMs } : {}),
    ...(unknownAlertMs != null ? { unknownAlertMs } : {}),
    ...(approvals !== undefined && approvals !== 1 ? { approvals } : {}),
    ...(timeoutMs != null && timeoutMs !== GATEWAY_DEFAULTS.timeoutMs ? { timeoutMs } : {}),
    ...(keyFrom != null && keyFrom !== GATEWAY_DEFAULTS.keyFrom ? { keyFrom } : {}),
    ...(toolError != null && toolError !== GATEWAY_DEFAULTS.toolError ? { toolError } : {}),
    ...(mode != null && mode !== GATEWAY_DEFAULTS.mode ? { mode } : {}),
    ...(errorRules != null && errorRules.length > 0 ? { errorRules } : {}),
    ...(traceArguments === true ? { traceArguments } : {}),
  };
}

export interface PutContractResult {
  contract: ContractView;
  created: boolean;
  changed: boolean;
}

/** Creates or replaces a contract. An identical body keeps the current version; a stale expectedVersion is refused. */
export async function putContract(
  ledger: Ledger,
  tool: string,
  body: ContractBody,
  actor: Actor,
  now: Date,
): Promise<PutContractResult> {
  const rules = rulesOf(body);
  const bodyHash = sha256(canonicalJson(rules));
  return auditedTransaction(ledger, async (tx, audit) => {
    const existing = await tx.toolContract.findUnique({ where: { tool } });
    const current = existing
      ? await tx.contractVersion.findUnique({ where: { tool_version: { tool, version: existing.currentVersion } } })
      : null;
    const currentVersion = existing?.currentVersion ?? 0;
    if (body.expectedVersion !== undefined && body.expectedVersion !== currentVersion) {
      throw new LedgerError(
        "contract_conflict",
        `The contract for ${tool} was changed to version ${currentVersion} since you opened version ${body.expectedVersion}; ` +
          "reload it and apply your change again.",
      );
    }
    if (current && current.bodyHash === bodyHash) {
      return { contract: contractView(current), created: false, changed: false };
    }
    const version = currentVersion + 1;
    if (existing) {
      await moveContractHead(tx, tool, currentVersion, version);
    } else {
      await tx.toolContract.create({ data: { tool, currentVersion: version, createdAt: now } });
    }
    const row = await tx.contractVersion.create({
      data: {
        id: newId(),
        tool,
        version,
        effect: rules.effect,
        idempotencyKey: rules.idempotencyKey,
        reconcile: rules.reconcile ? JSON.stringify(rules.reconcile) : null,
        approval: rules.approval,
        maxAttempts: rules.maxAttempts,
        backoffBaseMs: rules.backoff.baseMs,
        backoffMaxMs: rules.backoff.maxMs,
        keyRetentionMs: rules.keyRetentionMs ?? null,
        dependency: rules.dependency ?? null,
        description: rules.description ?? null,
        approvalTtlMs: rules.approvalTtlMs ?? null,
        unknownAlertMs: rules.unknownAlertMs ?? null,
        approvals: rules.approvals ?? 1,
        timeoutMs: rules.timeoutMs ?? null,
        keyFrom: rules.keyFrom ?? null,
        toolError: rules.toolError ?? null,
        mode: rules.mode ?? null,
        errorRules: rules.errorRules ? JSON.stringify(rules.errorRules) : null,
        traceArguments: rules.traceArguments ?? false,
        bodyHash,
        author: actorLabel(actor),
        createdAt: now,
      },
    });
    if (rules.dependency) {
      await tx.dependency.upsert({ where: { name: rules.dependency }, create: { name: rules.dependency }, update: {} });
    }
    audit([
      {
        subjectType: "contract",
        subjectId: tool,
        actor,
        action: existing ? "contract.updated" : "contract.created",
        reason: `version ${version}`,
        data: { version, previousVersion: existing ? currentVersion : null },
        at: now,
      },
    ]);
    return { contract: contractView(row), created: !existing, changed: true };
  });
}

/** Makes `to` the tool's current version, refused when another save moved it from `from` first. */
async function moveContractHead(tx: AuditedTx, tool: string, from: number, to: number): Promise<void> {
  const moved = await tx.toolContract.updateMany({
    where: { tool, currentVersion: from },
    data: { currentVersion: to },
  });
  if (moved.count !== 1) throw new LedgerError("write_conflict", "The contract changed during the save.");
}

/**
 * A new version of the tool's contract with the rules of version `seen`, which must still be the current one (else
 * `contract_conflict`): what the contract covers changed, not its rules (an admin confirmed the new definition of an
 * MCP tool, lib/ledger/commands/confirm-tool-definition.ts). Inside the caller's audited transaction, which writes the
 * version's audit record.
 */
export async function reissueContractVersion(
  tx: AuditedTx,
  tool: string,
  seen: number,
  actor: Actor,
  now: Date,
): Promise<ContractVersion> {
  const head = await tx.toolContract.findUnique({ where: { tool } });
  if (!head) throw new LedgerError("not_found", `There is no contract for the tool ${tool}.`);
  if (head.currentVersion !== seen) {
    throw new LedgerError(
      "contract_conflict",
      `The contract for ${tool} was changed to version ${head.currentVersion} since you saw version ${seen}; look at it again.`,
    );
  }
  const current = await tx.contractVersion.findUniqueOrThrow({ where: { tool_version: { tool, version: seen } } });
  const { id: _id, version: _version, author: _author, createdAt: _createdAt, ...rules } = current;
  await moveContractHead(tx, tool, seen, seen + 1);
  return tx.contractVersion.create({
    data: { ...rules, id: newId(), version: seen + 1, author: actorLabel(actor), createdAt: now },
  });
}

export async function getContract(ledger: Ledger, tool: string): Promise<ContractView> {
  const head = await ledger.db.toolContract.findUnique({ where: { tool } });
  const row = head
    ? await ledger.db.contractVersion.findUnique({ where: { tool_version: { tool, version: head.currentVersion } } })
    : null;
  if (!row) throw new LedgerError("not_found", `There is no contract for the tool ${tool}.`);
  return contractView(row);
}

/** Each tool with its current version, by tool: what changes whenever any contract is saved. */
export function contractHeads(ledger: Ledger): Promise<{ tool: string; currentVersion: number }[]> {
  return ledger.db.toolContract.findMany({ select: { tool: true, currentVersion: true }, orderBy: { tool: "asc" } });
}

export async function listContracts(ledger: Ledger): Promise<ContractView[]> {
  const heads = await ledger.db.toolContract.findMany({ orderBy: { tool: "asc" } });
  const rows = await ledger.db.contractVersion.findMany({
    where: { OR: heads.map((h) => ({ tool: h.tool, version: h.currentVersion })) },
    orderBy: { tool: "asc" },
  });
  return heads.length === 0 ? [] : rows.map(contractView);
}

export async function listContractVersions(ledger: Ledger, tool: string): Promise<ContractView[]> {
  const rows = await ledger.db.contractVersion.findMany({ where: { tool }, orderBy: { version: "desc" } });
  if (rows.length === 0) throw new LedgerError("not_found", `There is no contract for the tool ${tool}.`);
  return rows.map(contractView);
}
