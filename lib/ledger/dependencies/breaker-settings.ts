// A dependency's tunable breaker settings: each edit an immutable DependencySettings version, written with the
// Dependency row the gate reads and its audit record in one transaction; concurrent edits are refused, never merged.
import type { DependencySettings } from "@/lib/platform/generated/prisma/client";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import type { Ledger } from "@/lib/ledger/ledger";
import { actorLabel, type Actor } from "../actor";
import { LedgerError } from "../errors";
import { newId } from "../ids";
import { WriteConflict } from "../store/types";
import type { BreakerSettingsInput } from "./breaker-settings-schema";

export interface BreakerSettingsVersion {
  version: number;
  failureThreshold: number;
  cooldownMs: number;
  probes: number;
  author: string;
  reason: string | null;
  createdAt: string;
}

export interface PutBreakerSettingsResult {
  settings: BreakerSettingsVersion;
  /** False when the settings already were these: nothing was written. */
  changed: boolean;
}

export function settingsVersionView(row: DependencySettings): BreakerSettingsVersion {
  return {
    version: row.version,
    failureThreshold: row.failureThreshold,
    cooldownMs: row.cooldownMs,
    probes: row.probes,
    author: row.author,
    reason: row.reason,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Writes a new settings version for a dependency. `expectedVersion` is the settings version the admin saw: another
 * one is a 409 naming the version in force. Identical settings keep the version (nothing written, nothing audited).
 * The Dependency row's own version moves too, so a command that read the breaker earlier (the PostgreSQL store
 * remembers rows) fails its check and reads it again.
 */
export async function putBreakerSettings(
  ledger: Ledger,
  name: string,
  input: BreakerSettingsInput,
  actor: Actor,
  now: Date,
): Promise<PutBreakerSettingsResult> {
  return auditedTransaction(ledger, async (tx, audit) => {
    const row = await tx.dependency.findUnique({ where: { name } });
    if (!row) throw new LedgerError("not_found", `There is no dependency ${name}.`);
    if (input.expectedVersion !== row.settingsVersion) {
      throw new LedgerError(
        "write_conflict",
        `The breaker settings of ${name} were changed to version ${row.settingsVersion} ` +
          `since you opened version ${input.expectedVersion}; reload them and apply your change again.`,
      );
    }
    const previous = { failureThreshold: row.failureThreshold, cooldownMs: row.cooldownMs, probes: row.probes };
    const next = { failureThreshold: input.failureThreshold, cooldownMs: input.cooldownMs, probes: input.probes };
    if (JSON.stringify(previous) === JSON.stringify(next)) {
      return { settings: currentSettings(row, null), changed: false };
    }
    const version = row.settingsVersion + 1;
    const moved = await tx.dependency.updateMany({
      where: { name, version: row.version, settingsVersion: row.settingsVersion },
      data: { ...next, settingsVersion: version, version: row.version + 1, updatedAt: now },
    });
    // The breaker moved meanwhile (an outcome, a probe): run again on the fresh row.
    if (moved.count !== 1) throw new WriteConflict(`dependency ${name} changed meanwhile`);
    const written = await tx.dependencySettings.create({
      data: {
        id: newId(),
        dependency: name,
        version,
        ...next,
        author: actorLabel(actor),
        reason: input.reason,
        createdAt: now,
      },
    });
    audit([
      {
        subjectType: "dependency",
        subjectId: name,
        actor,
        action: "dependency.settings_changed",
        reason: input.reason,
        data: { version, previousVersion: row.settingsVersion, from: previous, to: next },
        at: now,
      },
    ]);
    return { settings: settingsVersionView(written), changed: true };
  });
}

/** The settings in force as a version; version 0 (never edited) has no author and is the defaults the row holds. */
function currentSettings(
  row: { settingsVersion: number; failureThreshold: number; cooldownMs: number; probes: number; updatedAt: Date },
  stored: DependencySettings | null,
): BreakerSettingsVersion {
  if (stored) return settingsVersionView(stored);
  return {
    version: row.settingsVersion,
    failureThreshold: row.failureThreshold,
    cooldownMs: row.cooldownMs,
    probes: row.probes,
    author: row.settingsVersion === 0 ? "defaults" : "unknown",
    reason: null,
    createdAt: row.updatedAt.toISOString(),
  };
}

export interface BreakerSettingsHistory {
  dependency: string;
  current: BreakerSettingsVersion;
  /** Newest first, at most `limit`; version 0 (the defaults) is not stored and not listed. */
  versions: BreakerSettingsVersion[];
}

export async function breakerSettingsHistory(
  ledger: Ledger,
  name: string,
  limit = 50,
): Promise<BreakerSettingsHistory> {
  const [row, versions] = await Promise.all([
    ledger.db.dependency.findUnique({ where: { name } }),
    ledger.db.dependencySettings.findMany({ where: { dependency: name }, orderBy: { version: "desc" }, take: limit }),
  ]);
  if (!row) throw new LedgerError("not_found", `There is no dependency ${name}.`);
  const stored = versions.find((v) => v.version === row.settingsVersion) ?? null;
  return { dependency: name, current: currentSettings(row, stored), versions: versions.map(settingsVersionView) };
}

/** The newest settings versions of several dependencies, for the Dependencies page (a few per dependency). */
export async function recentSettingsVersions(
  ledger: Ledger,
  names: string[],
  perDependency = 5,
): Promise<Map<string, BreakerSettingsVersion[]>> {
  const out = new Map<string, BreakerSettingsVersion[]>();
  if (names.length === 0) return out;
  const rows = await ledger.db.dependencySettings.findMany({
    where: { dependency: { in: names } },
    orderBy: [{ dependency: "asc" }, { version: "desc" }],
  });
  for (const row of rows) {
    const list = out.get(row.dependency) ?? [];
    if (list.length < perDependency) list.push(settingsVersionView(row));
    out.set(row.dependency, list);
  }
  return out;
}
