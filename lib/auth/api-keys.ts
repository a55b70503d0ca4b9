// API keys: made from 32 random bytes, shown once, stored only as a sha256 hash with a short prefix to tell them apart.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Ledger } from "@/lib/ledger/ledger";
import type { ApiKey } from "@/lib/generated/prisma/client";
import type { Actor } from "@/lib/ledger/actor";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { newId } from "@/lib/ledger/ids";

export const API_SCOPES = ["agent", "operator", "admin"] as const;
export type ApiScope = (typeof API_SCOPES)[number];

const PREFIX_LENGTH = 12;
/** Recording every use would add a write to every request; once a minute is enough to tell live keys from dead ones. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function generateApiKey(): string {
  return `opl_${randomBytes(32).toString("base64url")}`;
}

export function scopesOf(key: Pick<ApiKey, "scopes">): ApiScope[] {
  return key.scopes.split(",").filter((s): s is ApiScope => (API_SCOPES as readonly string[]).includes(s));
}

export interface CreatedApiKey {
  key: string;
  record: ApiKey;
}

export async function createApiKey(
  ledger: Ledger,
  input: { name: string; scopes: ApiScope[]; key?: string },
  actor: Actor,
  now: Date,
): Promise<CreatedApiKey> {
  const key = input.key ?? generateApiKey();
  const id = newId();
  const record = await auditedTransaction(ledger, async (tx, audit) => {
    const created = await tx.apiKey.create({
      data: {
        id,
        name: input.name,
        prefix: key.slice(0, PREFIX_LENGTH),
        hash: hashApiKey(key),
        scopes: [...new Set(input.scopes)].join(","),
        createdBy: actor.label,
        createdAt: now,
      },
    });
    audit([
      {
        subjectType: "api_key",
        subjectId: id,
        actor,
        action: "api_key.created",
        reason: input.name,
        data: { scopes: input.scopes, prefix: key.slice(0, PREFIX_LENGTH) },
        at: now,
      },
    ]);
    return created;
  });
  return { key, record };
}

export async function revokeApiKey(ledger: Ledger, id: string, actor: Actor, now: Date): Promise<void> {
  await auditedTransaction(ledger, async (tx, audit) => {
    await tx.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
    audit([{ subjectType: "api_key", subjectId: id, actor, action: "api_key.revoked", at: now }]);
  });
}

/** Finds the live key for a presented secret: lookup by hash, then a constant-time comparison of the digests. */
export async function verifyApiKey(ledger: Ledger, presented: string, now: Date): Promise<ApiKey | null> {
  const digest = hashApiKey(presented);
  const record = await ledger.store.apiKeyByHash(digest);
  if (!record || record.revokedAt) return null;
  if (!timingSafeEqual(Buffer.from(record.hash, "hex"), Buffer.from(digest, "hex"))) return null;
  if (!record.lastUsedAt || now.getTime() - record.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await ledger.db.apiKey.update({ where: { id: record.id }, data: { lastUsedAt: now } });
  }
  return record;
}

/**
 * Registers OPLEDGER_BOOTSTRAP_API_KEY (all scopes) unless a key with its hash exists. The value is never stored or
 * logged.
 */
export async function ensureBootstrapApiKey(ledger: Ledger, key: string, now: Date): Promise<boolean> {
  const existing = await ledger.db.apiKey.findUnique({ where: { hash: hashApiKey(key) } });
  if (existing) return false;
  try {
    await createApiKey(
      ledger,
      { name: "bootstrap (OPLEDGER_BOOTSTRAP_API_KEY)", scopes: [...API_SCOPES], key },
      { type: "system", id: "system", label: "bootstrap" },
      now,
    );
    return true;
  } catch (error) {
    // Another instance registered it at the same moment.
    if ((error as { code?: unknown }).code === "P2002") return false;
    throw error;
  }
}
