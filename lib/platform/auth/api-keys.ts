// API keys: made from 32 random bytes, shown once, stored only as a sha256 hash with a short prefix to tell them apart.
// An operator or admin key is bound to a person and acts as them; the bootstrap key is its own principal; an agent key
// acts as itself (docs/authority.md#principals).
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Ledger } from "@/lib/ledger/ledger";
import type { ApiKey } from "@/lib/platform/generated/prisma/client";
import type { Actor, Person, PersonRole } from "@/lib/ledger/actor";
import { LedgerError } from "@/lib/ledger/errors";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { newId } from "@/lib/ledger/ids";

export const API_SCOPES = ["agent", "operator", "admin", "metrics"] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/** Scopes that act as a person: a key with one of them must name its person (`ownerUserId`). */
export const PERSON_SCOPES: readonly ApiScope[] = ["operator", "admin"];

const PREFIX_LENGTH = 12;
/** Recording every use would add a write to every request; once a minute is enough to tell live keys from dead ones. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Every API request hashes its key: for so short an input the one-shot hash takes a quarter of a Hash object's time. */
export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex");
}

export function generateApiKey(): string {
  return `opl_${randomBytes(32).toString("base64url")}`;
}

export function scopesOf(key: Pick<ApiKey, "scopes">): ApiScope[] {
  return key.scopes.split(",").filter((s): s is ApiScope => (API_SCOPES as readonly string[]).includes(s));
}

/** Whether a person of `role` may hold a key with `scope`: admin scope for admins, operator scope for operators up. */
export function personAllows(role: PersonRole, scope: ApiScope): boolean {
  if (scope === "admin") return role === "admin";
  if (scope === "operator") return role !== "viewer";
  return true;
}

export interface CreatedApiKey {
  key: string;
  record: ApiKey;
}

export interface NewApiKey {
  name: string;
  scopes: ApiScope[];
  /** The person an operator or admin key acts as (required for those scopes, refused for the bootstrap key). */
  ownerUserId?: string | null;
  key?: string;
  bootstrap?: boolean;
}

function ownerProblem(message: string): LedgerError {
  return new LedgerError("invalid_body", message, { errors: { ownerUserId: [message] } });
}

export async function createApiKey(ledger: Ledger, input: NewApiKey, actor: Actor, now: Date): Promise<CreatedApiKey> {
  const key = input.key ?? generateApiKey();
  const id = newId();
  const scopes = [...new Set(input.scopes)];
  const ownerUserId = input.bootstrap ? null : (input.ownerUserId ?? null);
  const actsAsPerson = scopes.some((s) => PERSON_SCOPES.includes(s));
  if (!input.bootstrap && actsAsPerson && !ownerUserId) {
    throw ownerProblem("A key with the operator or admin scope acts as a person: name the person it belongs to.");
  }
  const record = await auditedTransaction(ledger, async (tx, audit) => {
    if (ownerUserId) {
      const owner = await tx.user.findUnique({ where: { id: ownerUserId }, select: { role: true, disabledAt: true } });
      if (!owner || owner.disabledAt) throw ownerProblem("This person does not exist or is disabled.");
      if (scopes.includes("admin") && !personAllows(owner.role as PersonRole, "admin")) {
        throw ownerProblem("An admin-scope key must belong to an admin: it can do no more than its person.");
      }
      if (scopes.includes("operator") && !personAllows(owner.role as PersonRole, "operator")) {
        throw ownerProblem("An operator-scope key must belong to an operator or an admin.");
      }
    }
    const created = await tx.apiKey.create({
      data: {
        id,
        name: input.name,
        prefix: key.slice(0, PREFIX_LENGTH),
        hash: hashApiKey(key),
        scopes: scopes.join(","),
        ownerUserId: actsAsPerson ? ownerUserId : null,
        bootstrap: input.bootstrap ?? false,
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
        data: { scopes, prefix: key.slice(0, PREFIX_LENGTH), ownerUserId: created.ownerUserId },
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

export function keyLabel(key: Pick<ApiKey, "name" | "prefix">): string {
  return `${key.name} (${key.prefix}…)`;
}

/** The principal a live key acts as. */
export type KeyActor = Extract<Actor, { type: "api_key" }>;

/**
 * Finds the live key for a presented secret (lookup by hash, then a constant-time comparison of the digests) and the
 * principal it acts as. A key whose person is disabled or gone is as dead as a revoked one.
 */
export async function verifyApiKey(
  ledger: Ledger,
  presented: string,
  now: Date,
): Promise<{ key: ApiKey; actor: KeyActor } | null> {
  const digest = hashApiKey(presented);
  const record = await ledger.store.apiKeyByHash(digest);
  if (!record || record.revokedAt) return null;
  if (!timingSafeEqual(Buffer.from(record.hash, "hex"), Buffer.from(digest, "hex"))) return null;
  let person: Person | null = null;
  if (record.ownerUserId) {
    const owner = await ledger.db.user.findUnique({
      where: { id: record.ownerUserId },
      select: { id: true, email: true, role: true, disabledAt: true },
    });
    if (!owner || owner.disabledAt) return null;
    person = { id: owner.id, label: owner.email, role: owner.role as PersonRole };
  }
  if (!record.lastUsedAt || now.getTime() - record.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await ledger.db.apiKey.update({ where: { id: record.id }, data: { lastUsedAt: now } });
  }
  // A key can do no more than its person: a person demoted since the key was made takes its scopes down too.
  const scopes = scopesOf(record).filter((scope) => !person || personAllows(person.role, scope));
  return {
    key: { ...record, scopes: scopes.join(",") },
    actor: { type: "api_key", id: record.id, label: keyLabel(record), scopes, person },
  };
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
      { name: "bootstrap (OPLEDGER_BOOTSTRAP_API_KEY)", scopes: [...API_SCOPES], key, bootstrap: true },
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
