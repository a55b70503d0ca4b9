// The one wrapper every console server action is built on: session, role, validated input, and errors as a result the
// form can show.
import type { z } from "zod";
import { refusalOf } from "@/lib/platform/http/refusal";
import { fieldErrors, unstorableInput } from "@/lib/platform/http/request-body";
import type { Role } from "@/lib/platform/auth/roles";
import {
  CrossSiteError,
  requireUser,
  UnauthenticatedError,
  userActor,
  type SessionUser,
} from "@/lib/platform/auth/session";
import { ledger, type Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "@/lib/ledger/actor";

export type ActionResult<T> =
  { ok: true; data: T } | { ok: false; code: string; message: string; errors?: Record<string, string[]> };

export interface ActionContext {
  user: SessionUser;
  actor: Actor;
  ledger: Ledger;
  now: Date;
}

function failure(error: unknown): ActionResult<never> {
  if (error instanceof CrossSiteError) return { ok: false, code: "cross_site_request", message: error.message };
  if (error instanceof UnauthenticatedError) return { ok: false, code: "unauthenticated", message: error.message };
  const refusal = refusalOf(error);
  if (refusal) {
    return {
      ok: false,
      code: refusal.code,
      message: refusal.message,
      ...(refusal.errors ? { errors: refusal.errors } : {}),
    };
  }
  console.error("opledger: unhandled error in console action:", error instanceof Error ? error.stack : error);
  return {
    ok: false,
    code: "internal_error",
    message: "The server failed to do this; nothing was confirmed. Reload the page to see the current state.",
  };
}

/** Builds a server action that needs `role`; the role is checked inside the action, whatever the UI showed. */
export function consoleAction<S extends z.ZodType, T>(
  role: Role,
  schema: S,
  handler: (input: z.infer<S>, ctx: ActionContext) => Promise<T>,
): (input: z.input<S>) => Promise<ActionResult<T>> {
  return async (input) => {
    try {
      const user = await requireUser(role);
      // Before the schema, which walks the input recursively: nesting deeper than 64, unstorable text, __proto__ keys.
      const unstorable = unstorableInput(input);
      if (unstorable) return { ok: false, code: "invalid_input", message: unstorable };
      const parsed = schema.safeParse(input);
      if (!parsed.success) {
        return {
          ok: false,
          code: "invalid_input",
          message: "Some fields need attention.",
          errors: fieldErrors(parsed.error),
        };
      }
      const data = await handler(parsed.data, { user, actor: userActor(user), ledger: ledger(), now: new Date() });
      return { ok: true, data };
    } catch (error) {
      return failure(error);
    }
  };
}
