// Parses a query string with a zod schema; a bad parameter is a 400 problem naming it.
import type { z } from "zod";
import { BodyError, fieldErrors } from "./request-body";

export function readQuery<S extends z.ZodType>(req: Request, schema: S): z.infer<S> {
  const params = Object.fromEntries([...new URL(req.url).searchParams.entries()].filter(([, value]) => value !== ""));
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
