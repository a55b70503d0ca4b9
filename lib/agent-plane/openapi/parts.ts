// The building blocks of the OpenAPI document, shared by lib/agent-plane/openapi.ts and the feature files beside this one.

/** A JSON value: the document is a plain literal, checked by openapi.test.ts rather than by a schema type. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** A shared response from components.responses. */
export const shared = (name: string): JsonObject => ({ $ref: `#/components/responses/${name}` });

/** A JSON response whose body is a schema from components. */
export const json = (description: string, schema: string): JsonObject => ({
  description,
  content: { "application/json": { schema: ref(schema) } },
});

/**
 * A problem+json response naming the stable `code` values docs/api.md#errors gives it. Listed as examples, not an enum:
 * the server may add codes (docs/api.md#conventions: fields may be added), and a client must treat an unlisted code as
 * this status.
 */
export const problem = (description: string, codes: string[] = []): JsonObject => ({
  description: codes.length ? `${description} Codes: ${codes.map((c) => `\`${c}\``).join(", ")}.` : description,
  content: {
    "application/problem+json": {
      schema: codes.length
        ? { allOf: [ref("Problem"), { type: "object", properties: { code: { type: "string", examples: codes } } }] }
        : ref("Problem"),
    },
  },
});
