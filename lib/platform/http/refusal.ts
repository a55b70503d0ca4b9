// The one reading of an error that the three wrappers share (the agent plane's errorReply, the console's routes and
// its server actions): a refusal with its status, stable code and sentence, or null for an error nobody expected (a
// bug: each wrapper logs it and answers its own "internal error").
import { ForbiddenError } from "@/lib/platform/auth/roles";
import { LedgerError } from "@/lib/ledger/errors";
import { IllegalTransitionError } from "@/lib/retry-gate/phases";
import type { Decision } from "@/lib/retry-gate/types";
import { BodyError } from "./request-body";

export interface Refusal {
  status: number;
  code: string;
  message: string;
  /** Field path -> messages, "" for the input itself. */
  errors?: Record<string, string[]>;
  decision?: Decision;
  operationId?: string;
}

export function refusalOf(error: unknown): Refusal | null {
  if (error instanceof LedgerError) {
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      ...(error.extra.errors ? { errors: error.extra.errors } : {}),
      ...(error.extra.decision ? { decision: error.extra.decision } : {}),
      ...(error.extra.operationId ? { operationId: error.extra.operationId } : {}),
    };
  }
  if (error instanceof BodyError) {
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
    };
  }
  if (error instanceof ForbiddenError) return { status: 403, code: "forbidden", message: error.message };
  if (error instanceof IllegalTransitionError)
    return { status: 409, code: "illegal_transition", message: error.message };
  return null;
}
