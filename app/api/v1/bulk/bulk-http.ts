// What the bulk routes share: a body read against the schema its shape calls for, and the bulk refusals as problem
// documents (the ledger's own errors are mapped by apiRoute).
import type { z } from "zod";
import { problem, titleFor } from "@/lib/api/problem";
import { BodyError, fieldErrors } from "@/lib/api/request-body";
import { BulkError } from "@/lib/ledger/bulk/errors";

/** `value` checked against `schema`, or the same 400 readJson answers. */
export function validBody<S extends z.ZodType>(value: unknown, schema: S): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const errors = fieldErrors(parsed.error);
  const summary = Object.entries(errors)
    .map(([field, messages]) => `${field || "body"}: ${messages.join(", ")}`)
    .join("; ");
  throw new BodyError(400, "invalid_body", `The body is invalid: ${summary}.`, errors);
}

/** Runs `work`, answering a bulk refusal (nothing matches, too many, expired, already run) as its problem document. */
export async function bulkRefusals(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof BulkError)) throw error;
    return problem({ status: error.status, code: error.code, title: titleFor(error.status), detail: error.message });
  }
}
