// The demo providers' memory: every applied effect and every remembered idempotency key, optionally kept in a
// JSON-lines file.
import fs from "node:fs";
import path from "node:path";
import type { ProviderName } from "./faults";

/** One effect a provider applied: what a test counts to find duplicates. */
export interface AppliedEffect {
  seq: number;
  provider: ProviderName;
  /** charge, refund, email, deployment. */
  kind: string;
  /** The provider's id for the effect (ch_..., msg_..., dep_...). */
  id: string;
  idempotencyKey: string | null;
  clientToken: string | null;
  /** From the X-Opledger-Operation-Id header, when the caller sent it. */
  operationId: string | null;
  /** From the X-Opledger-Attempt header. */
  attempt: number | null;
  at: string;
  /** What was applied (amount, recipient, service ...), for lookups. */
  data: Record<string, unknown>;
}

/** A stored answer for an idempotency key: the same key gets the same answer while it is kept. */
export interface KeyRecord {
  scope: string;
  key: string;
  requestHash: string;
  status: number;
  body: Record<string, unknown>;
  at: number;
}

type Line = { t: "effect"; effect: AppliedEffect } | { t: "key"; record: KeyRecord };

export class ProviderStore {
  readonly effects: AppliedEffect[] = [];
  private readonly keys = new Map<string, KeyRecord>();
  /** The newest effect per `kind:idempotencyKey` and `kind:token:clientToken`, for lookups. */
  private readonly index = new Map<string, AppliedEffect>();
  private seq = 0;

  /**
   * @param file where to keep the state across restarts (a lookup after a restart must still find yesterday's
   * charge, or a reconciliation would wrongly say "not applied"); null keeps it in memory only.
   * @param keyRetentionMs how long an idempotency key is honoured (Stripe: 24 h).
   * @param effectRetentionMs how long applied effects stay findable by a lookup (longer than the keys).
   */
  constructor(
    private readonly file: string | null,
    private readonly keyRetentionMs: number,
    private readonly effectRetentionMs: number,
    private readonly now: () => number,
  ) {
    if (file) this.load(file);
  }

  addEffect(effect: Omit<AppliedEffect, "seq" | "at">): AppliedEffect {
    this.seq += 1;
    const full: AppliedEffect = { ...effect, seq: this.seq, at: new Date(this.now()).toISOString() };
    this.remember(full);
    this.append({ t: "effect", effect: full });
    return full;
  }

  /** The newest effect of a kind applied with this idempotency key. */
  byKey(kind: string, key: string): AppliedEffect | null {
    return this.index.get(`${kind}:${key}`) ?? null;
  }

  /** The newest effect of a kind applied with this client token. */
  byToken(kind: string, token: string): AppliedEffect | null {
    return this.index.get(`${kind}:token:${token}`) ?? null;
  }

  /** The stored answer for a key, unless the provider has forgotten it (older than the retention window). */
  getKey(scope: string, key: string): KeyRecord | null {
    const record = this.keys.get(`${scope}:${key}`);
    if (!record) return null;
    if (record.at + this.keyRetentionMs <= this.now()) {
      this.keys.delete(`${scope}:${key}`);
      return null;
    }
    return record;
  }

  putKey(record: Omit<KeyRecord, "at">): KeyRecord {
    const full: KeyRecord = { ...record, at: this.now() };
    this.keys.set(`${record.scope}:${record.key}`, full);
    this.append({ t: "key", record: full });
    return full;
  }

  private remember(effect: AppliedEffect): void {
    this.effects.push(effect);
    if (effect.idempotencyKey) this.index.set(`${effect.kind}:${effect.idempotencyKey}`, effect);
    if (effect.clientToken) this.index.set(`${effect.kind}:token:${effect.clientToken}`, effect);
  }

  private append(line: Line): void {
    if (!this.file) return;
    // Synchronous on purpose: an effect must be on disk before the provider answers, like a real provider's commit.
    fs.appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }

  /** Reads the file, drops what is older than the retention windows, and rewrites it compacted. */
  private load(file: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (!fs.existsSync(file)) return;
    const now = this.now();
    const kept: Line[] = [];
    for (const text of fs.readFileSync(file, "utf8").split("\n")) {
      if (!text.trim()) continue;
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        continue; // A line cut short by a crash.
      }
      if (line.t === "effect") {
        this.seq = Math.max(this.seq, line.effect.seq);
        if (Date.parse(line.effect.at) < now - this.effectRetentionMs) continue;
        this.remember(line.effect);
      } else {
        if (line.record.at < now - this.keyRetentionMs) continue;
        this.keys.set(`${line.record.scope}:${line.record.key}`, line.record);
      }
      kept.push(line);
    }
    const tmp = `${file}.tmp`;
    fs.writeFileSync(tmp, kept.map((l) => `${JSON.stringify(l)}\n`).join(""));
    fs.renameSync(tmp, file);
  }
}
