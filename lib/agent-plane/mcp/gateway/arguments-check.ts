// The arguments of a call checked against the upstream tool's input schema before anything is planned, so a call the
// upstream would refuse leaves no operation behind.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

const validators = new WeakMap<Tool, JsonSchemaValidator<unknown>>();
/**
 * One per process, also given to every gateway Server: the SDK otherwise builds a new Ajv (its meta-schemas and
 * vocabularies) for each Server, that is for each request.
 */
export const ajv = new AjvJsonSchemaValidator();

/** Null when the arguments fit; else the validator's sentence. A schema ajv cannot compile is not ours to judge. */
export function argumentsProblem(tool: Tool, args: Record<string, unknown>): string | null {
  let validate = validators.get(tool);
  if (!validate) {
    try {
      validate = ajv.getValidator(tool.inputSchema);
    } catch {
      return null;
    }
    validators.set(tool, validate);
  }
  const verdict = validate(args);
  return verdict.valid ? null : verdict.errorMessage;
}
