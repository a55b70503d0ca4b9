"use server";
// Server actions of the admin page: users and API keys. Each needs the admin role, checked inside consoleAction.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import {
  addUser,
  changeUserRole,
  disableUser,
  enableUser,
  issueApiKey,
  MIN_PASSWORD_LENGTH,
  resetUserPassword,
  revokeApiKeyWithReason,
} from "@/lib/platform/auth/admin";
import { API_SCOPES } from "@/lib/platform/auth/api-keys";
import { ROLES, type Role } from "@/lib/platform/auth/roles";
import { consoleAction, type ActionResult } from "./console-action";

const ADMIN_PATH = "/admin";

const reason = z
  .string()
  .trim()
  .min(1, "Give a reason; it is recorded in the audit trail.")
  .max(500, "Keep the reason under 500 characters.");
const optionalReason = z
  .string()
  .trim()
  .max(500, "Keep the reason under 500 characters.")
  .optional()
  .transform((v) => (v ? v : undefined));

/** Every field an admin can send about a user; each action picks the ones it needs. */
const userFields = z.object({
  userId: z.string().min(1).max(64),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, "Use an email of at most 254 characters.")
    .pipe(z.email("Enter an email address, like name@example.com.")),
  name: z.string().trim().min(1, "Enter the person's name.").max(120, "Use at most 120 characters."),
  role: z.enum(ROLES, { error: "Choose viewer, operator or admin." }),
  password: z
    .string()
    .min(MIN_PASSWORD_LENGTH, `Use at least ${MIN_PASSWORD_LENGTH} characters.`)
    .max(256, "Use at most 256 characters."),
  reason,
});

const apiKeyFields = z.object({
  keyId: z.string().min(1).max(64),
  name: z
    .string()
    .trim()
    .min(1, "Name the key after the agent or service that will use it.")
    .max(100, "Use at most 100 characters."),
  scopes: z.array(z.enum(API_SCOPES, { error: "Unknown scope." })).min(1, "Choose at least one scope."),
  /** The person an operator or admin key acts as; the ledger checks it is there, active and senior enough. */
  ownerUserId: z
    .string()
    .trim()
    .max(64)
    .optional()
    .transform((v) => (v ? v : undefined)),
  reason,
});

const createUserInput = userFields.pick({ email: true, name: true, role: true, password: true });
const changeRoleInput = userFields.pick({ userId: true, role: true }).extend({ reason: optionalReason });
const disableUserInput = userFields.pick({ userId: true, reason: true });
const enableUserInput = userFields.pick({ userId: true }).extend({ reason: optionalReason });
const resetPasswordInput = userFields.pick({ userId: true, password: true });
const createApiKeyInput = apiKeyFields.pick({ name: true, scopes: true, ownerUserId: true });
const revokeApiKeyInput = apiKeyFields.pick({ keyId: true, reason: true });

const createUserChecked = consoleAction("admin", createUserInput, (input, ctx) =>
  addUser(ctx.ledger, input, ctx.actor, ctx.now),
);
const changeRoleChecked = consoleAction("admin", changeRoleInput, (input, ctx) =>
  changeUserRole(ctx.ledger, input, ctx.actor, ctx.now),
);
const disableUserChecked = consoleAction("admin", disableUserInput, (input, ctx) =>
  disableUser(ctx.ledger, input, ctx.actor, ctx.now),
);
const enableUserChecked = consoleAction("admin", enableUserInput, (input, ctx) =>
  enableUser(ctx.ledger, input, ctx.actor, ctx.now),
);
const resetPasswordChecked = consoleAction("admin", resetPasswordInput, (input, ctx) =>
  resetUserPassword(ctx.ledger, input, ctx.actor, ctx.now),
);
const createApiKeyChecked = consoleAction("admin", createApiKeyInput, (input, ctx) =>
  issueApiKey(ctx.ledger, input, ctx.actor, ctx.now),
);
const revokeApiKeyChecked = consoleAction("admin", revokeApiKeyInput, (input, ctx) =>
  revokeApiKeyWithReason(ctx.ledger, input, ctx.actor, ctx.now),
);

/** Re-renders the admin page in the same response, outside the wrapper's try/catch, only when something changed. */
function revalidated<T>(result: ActionResult<T>): ActionResult<T> {
  if (result.ok) revalidatePath(ADMIN_PATH);
  return result;
}

export async function createUserAction(
  input: z.input<typeof createUserInput>,
): Promise<ActionResult<{ id: string; email: string }>> {
  return revalidated(await createUserChecked(input));
}

export async function changeRoleAction(
  input: z.input<typeof changeRoleInput>,
): Promise<ActionResult<{ email: string; role: Role; changed: boolean }>> {
  return revalidated(await changeRoleChecked(input));
}

export async function disableUserAction(
  input: z.input<typeof disableUserInput>,
): Promise<ActionResult<{ email: string }>> {
  return revalidated(await disableUserChecked(input));
}

export async function enableUserAction(
  input: z.input<typeof enableUserInput>,
): Promise<ActionResult<{ email: string }>> {
  return revalidated(await enableUserChecked(input));
}

export async function resetPasswordAction(
  input: z.input<typeof resetPasswordInput>,
): Promise<ActionResult<{ email: string }>> {
  return revalidated(await resetPasswordChecked(input));
}

/** The result carries the secret once; the page re-renders with only its prefix. */
export async function createApiKeyAction(
  input: z.input<typeof createApiKeyInput>,
): Promise<ActionResult<{ id: string; name: string; prefix: string; key: string }>> {
  return revalidated(await createApiKeyChecked(input));
}

export async function revokeApiKeyAction(
  input: z.input<typeof revokeApiKeyInput>,
): Promise<ActionResult<{ name: string; prefix: string }>> {
  return revalidated(await revokeApiKeyChecked(input));
}
