// A bulk route's body read against the schema its shape calls for (the ledger's refusals are mapped by apiRoute).
import type { z } from "zod";
import { BodyError, fieldErrors } from "@/lib/api/request-body";

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
