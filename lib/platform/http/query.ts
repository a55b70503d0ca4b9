// Parses a query string with a zod schema; a bad parameter is a 400 problem naming it.
import type { z } from "zod";
import { BodyError, fieldErrors } from "./request-body";

/** The query's parameters (empty ones left out) checked against `schema`. */
export function validQuery<S extends z.ZodType>(query: URLSearchParams, schema: S): z.infer<S> {
  const params = Object.fromEntries([...query.entries()].filter(([, value]) => value !== ""));
  const parsed = schema.safeParse(params);
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error);
    throw new BodyError(
      400,
      "invalid_body",
      `Bad query parameters: ${Object.keys(errors).join(", ") || "query"}.`,
      errors,
    );
  }
  return parsed.data;
}

export function readQuery<S extends z.ZodType>(req: Request, schema: S): z.infer<S> {
  return validQuery(new URL(req.url).searchParams, schema);
}
