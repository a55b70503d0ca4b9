// Administration of console users and API keys: the lists the admin page shows and every change an admin makes, each
// audited in its own transaction.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Prisma } from "@/lib/platform/generated/prisma/client";
import { personOf, type Actor } from "@/lib/ledger/actor";
import { auditedTransaction } from "@/lib/ledger/audit/audited-transaction";
import { LedgerError } from "@/lib/ledger/errors";
import { WriteConflict } from "@/lib/ledger/store/types";
import { createApiKey, scopesOf, type ApiScope } from "./api-keys";
import { hashPassword, MAX_PASSWORD_LENGTH } from "./passwords";
import { ForbiddenError, ROLES, type Role } from "./roles";
import { END_SESSIONS } from "./session-version";
import { clearAccountThrottle } from "./sign-in-limiter";
import { createUser } from "./users";

/** The same floor as the CLI and OPLEDGER_ADMIN_PASSWORD: long passphrases beat composition rules. */
export const MIN_PASSWORD_LENGTH = 12;

/** The admin page lists at most this many users and keys; it says so when a list is cut. */
export const ADMIN_LIST_LIMIT = 500;

export type UserStatus = "active" | "locked" | "disabled";

export interface UserListItem {
  id: string;
  email: string;
  name: string;
  role: Role;
  status: UserStatus;
  /** Set while the account is locked after too many failed sign-ins. */
  lockedUntil: Date | null;
  disabledAt: Date | null;
  createdAt: Date;
}

export interface ApiKeyListItem {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiScope[];
  createdBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The person an operator or admin key acts as, and their email (null when that user no longer exists). */
  ownerUserId: string | null;
  ownerEmail: string | null;
  /** The key from OPLEDGER_BOOTSTRAP_API_KEY: its own principal, never a person. */
  bootstrap: boolean;
}

function asRole(value: string): Role {
  return (ROLES as readonly string[]).includes(value) ? (value as Role) : "viewer";
}

/** Disabled wins over locked: a disabled account stays out whatever its lockout says. */
export function userStatus(user: { disabledAt: Date | null; lockedUntil: Date | null }, now: Date): UserStatus {
  if (user.disabledAt) return "disabled";
  if (user.lockedUntil && user.lockedUntil.getTime() > now.getTime()) return "locked";
  return "active";
}

export async function listUsers(ledger: Ledger, now: Date): Promise<UserListItem[]> {
  const rows = await ledger.db.user.findMany({
    select: { id: true, email: true, name: true, role: true, lockedUntil: true, disabledAt: true, createdAt: true },
    orderBy: { email: "asc" },
    take: ADMIN_LIST_LIMIT,
  });
  return rows.map((row) => {
    const status = userStatus(row, now);
    return { ...row, role: asRole(row.role), status, lockedUntil: status === "locked" ? row.lockedUntil : null };
  });
}

/**
 * Newest first, revoked keys included: an admin tracing a 401 needs to see that the key was revoked, when and by whom.
 */
export async function listApiKeys(ledger: Ledger): Promise<ApiKeyListItem[]> {
  const rows = await ledger.db.apiKey.findMany({
    select: {
      id: true,
      name: true,
      prefix: true,
      scopes: true,
      createdBy: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
      ownerUserId: true,
      bootstrap: true,
    },
    orderBy: { createdAt: "desc" },
    take: ADMIN_LIST_LIMIT,
  });
  // Keys name their person by id; one query finds the emails the list shows.
  const ownerIds = [...new Set(rows.flatMap((row) => (row.ownerUserId ? [row.ownerUserId] : [])))];
  const owners = ownerIds.length
    ? await ledger.db.user.findMany({ where: { id: { in: ownerIds } }, select: { id: true, email: true } })
    : [];
  const emailOf = new Map(owners.map((owner) => [owner.id, owner.email]));
  return rows.map((row) => ({
    ...row,
    scopes: scopesOf(row),
    ownerEmail: row.ownerUserId ? (emailOf.get(row.ownerUserId) ?? null) : null,
  }));
}

function passwordProblem(password: string): LedgerError | null {
  if (password.length >= MIN_PASSWORD_LENGTH && password.length <= MAX_PASSWORD_LENGTH) return null;
  const message =
    password.length > MAX_PASSWORD_LENGTH
      ? `Use at most ${MAX_PASSWORD_LENGTH} characters.`
      : `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  return new LedgerError("invalid_body", message, { errors: { password: [message] } });
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2002";
}

/**
 * createUser with the rules an admin's form needs: the password floor, and a taken email reported on the email field.
 */
export async function addUser(
  ledger: Ledger,
  input: { email: string; name: string; role: Role; password: string },
  actor: Actor,
  now: Date,
): Promise<{ id: string; email: string }> {
  const weak = passwordProblem(input.password);
  if (weak) throw weak;
  try {
    const user = await createUser(ledger, input, actor, now);
    return { id: user.id, email: user.email };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const message = "A user with this email already exists.";
    throw new LedgerError("invalid_body", message, { errors: { email: [message] } });
  }
}

type Tx = Prisma.TransactionClient;

interface TargetUser {
  id: string;
  email: string;
  role: Role;
  disabledAt: Date | null;
}

async function loadUser(tx: Tx, id: string): Promise<TargetUser> {
  const user = await tx.user.findUnique({
    where: { id },
    select: { id: true, email: true, role: true, disabledAt: true },
  });
  if (!user) throw new LedgerError("not_found", "This user no longer exists; reload the page.");
  return { ...user, role: asRole(user.role) };
}

/** The admin acting on their own account, directly or through an admin key bound to them. */
function isSelf(actor: Actor, user: TargetUser): boolean {
  return personOf(actor)?.id === user.id;
}

/** Someone must always be able to manage users: the last enabled admin cannot be demoted or disabled. */
async function assertAnotherAdmin(tx: Tx, user: TargetUser): Promise<void> {
  if (user.role !== "admin" || user.disabledAt) return;
  const others = await tx.user.count({ where: { role: "admin", disabledAt: null, id: { not: user.id } } });
  if (others === 0)
    throw new ForbiddenError(`${user.email} is the last enabled admin; make someone else an admin first.`);
}

/**
 * Moves a user to another role and ends their sessions: they sign in again under the new role (sessions read the role
 * from the database anyway; ending them makes the change visible to the person and to every open tab).
 */
export async function changeUserRole(
  ledger: Ledger,
  input: { userId: string; role: Role; reason?: string },
  actor: Actor,
  now: Date,
): Promise<{ email: string; role: Role; changed: boolean }> {
  return auditedTransaction(ledger, async (tx, audit) => {
    const user = await loadUser(tx, input.userId);
    if (user.role === input.role) return { email: user.email, role: user.role, changed: false };
    if (input.role !== "admin") {
      if (isSelf(actor, user))
        throw new ForbiddenError("You cannot remove your own admin role; ask another admin to do it.");
      await assertAnotherAdmin(tx, user);
    }
    const moved = await tx.user.updateMany({
      where: { id: user.id, role: user.role },
      data: { role: input.role, ...END_SESSIONS },
    });
    if (moved.count !== 1) throw new WriteConflict();
    audit([
      {
        subjectType: "user",
        subjectId: user.email,
        actor,
        action: "user.role_changed",
        reason: input.reason ?? null,
        data: { from: user.role, to: input.role },
        at: now,
      },
    ]);
    return { email: user.email, role: input.role, changed: true };
  });
}

/**
 * Disabling ends the user's sessions (their next request is sent to sign-in) and refuses their sign-ins; their audit
 * history stays.
 */
export async function disableUser(
  ledger: Ledger,
  input: { userId: string; reason: string },
  actor: Actor,
  now: Date,
): Promise<{ email: string }> {
  return auditedTransaction(ledger, async (tx, audit) => {
    const user = await loadUser(tx, input.userId);
    if (user.disabledAt) return { email: user.email };
    if (isSelf(actor, user))
      throw new ForbiddenError("You cannot disable your own account; ask another admin to do it.");
    await assertAnotherAdmin(tx, user);
    const changed = await tx.user.updateMany({
      where: { id: user.id, disabledAt: null },
      data: { disabledAt: now, ...END_SESSIONS },
    });
    if (changed.count !== 1) throw new WriteConflict();
    audit([
      { subjectType: "user", subjectId: user.email, actor, action: "user.disabled", reason: input.reason, at: now },
    ]);
    return { email: user.email };
  });
}

/**
 * Lets a disabled user sign in again, with a clean slate of failed attempts. Sessions from before the disabling stay
 * ended: disabling raised their version.
 */
export async function enableUser(
  ledger: Ledger,
  input: { userId: string; reason?: string },
  actor: Actor,
  now: Date,
): Promise<{ email: string }> {
  return auditedTransaction(ledger, async (tx, audit) => {
    const user = await loadUser(tx, input.userId);
    if (!user.disabledAt) return { email: user.email };
    const changed = await tx.user.updateMany({
      where: { id: user.id, disabledAt: { not: null } },
      data: { disabledAt: null, lockedUntil: null },
    });
    if (changed.count !== 1) throw new WriteConflict();
    await clearAccountThrottle(tx, user.email);
    audit([
      {
        subjectType: "user",
        subjectId: user.email,
        actor,
        action: "user.enabled",
        reason: input.reason ?? null,
        at: now,
      },
    ]);
    return { email: user.email };
  });
}

/**
 * Sets a new password, ends the user's sessions (whoever knew the old password is signed out) and lifts a lockout, so
 * "I locked myself out" is fixed by one admin action. An admin resetting their own password signs in again too.
 */
export async function resetUserPassword(
  ledger: Ledger,
  input: { userId: string; password: string },
  actor: Actor,
  now: Date,
): Promise<{ email: string }> {
  const weak = passwordProblem(input.password);
  if (weak) throw weak;
  // Hash before the transaction: scrypt takes tens of milliseconds and must not hold a write lock.
  const passwordHash = await hashPassword(input.password);
  return auditedTransaction(ledger, async (tx, audit) => {
    const user = await loadUser(tx, input.userId);
    await tx.user.update({ where: { id: user.id }, data: { passwordHash, lockedUntil: null, ...END_SESSIONS } });
    await clearAccountThrottle(tx, user.email);
    audit([{ subjectType: "user", subjectId: user.email, actor, action: "user.password_reset", at: now }]);
    return { email: user.email };
  });
}

/** createApiKey, returning only what the one-time display needs: the secret itself is never stored. */
export async function issueApiKey(
  ledger: Ledger,
  input: { name: string; scopes: ApiScope[]; ownerUserId?: string | null },
  actor: Actor,
  now: Date,
): Promise<{ id: string; name: string; prefix: string; key: string }> {
  const { key, record } = await createApiKey(ledger, input, actor, now);
  return { id: record.id, name: record.name, prefix: record.prefix, key };
}

/**
 * Revokes a key with the admin's reason in its audit record. Unlike api-keys.ts's revokeApiKey, a key that is
 * unknown or already revoked is reported rather than audited a second time.
 */
export async function revokeApiKeyWithReason(
  ledger: Ledger,
  input: { keyId: string; reason: string },
  actor: Actor,
  now: Date,
): Promise<{ name: string; prefix: string }> {
  return auditedTransaction(ledger, async (tx, audit) => {
    const key = await tx.apiKey.findUnique({
      where: { id: input.keyId },
      select: { id: true, name: true, prefix: true, revokedAt: true },
    });
    if (!key) throw new LedgerError("not_found", "This API key no longer exists; reload the page.");
    if (key.revokedAt) throw new LedgerError("already_finished", `The key ${key.name} was already revoked.`);
    const changed = await tx.apiKey.updateMany({ where: { id: key.id, revokedAt: null }, data: { revokedAt: now } });
    if (changed.count !== 1) throw new WriteConflict();
    audit([
      {
        subjectType: "api_key",
        subjectId: key.id,
        actor,
        action: "api_key.revoked",
        reason: input.reason,
        data: { name: key.name, prefix: key.prefix },
        at: now,
      },
    ]);
    return { name: key.name, prefix: key.prefix };
  });
}
