// GET and PUT /api/v1/dependencies/{name}/breaker: a dependency's breaker settings and their versions; an edit (admin
// scope) writes a new version, naming the version it replaces (409 when another edit came first).
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { breakerSettingsSchema, DEPENDENCY_NAME } from "@/lib/ledger/dependencies/breaker-settings-schema";
import { breakerSettingsHistory, putBreakerSettings } from "@/lib/ledger/dependencies/breaker-settings";
import { LedgerError } from "@/lib/ledger/errors";

type Params = { name: string };

/** A name no contract can give a dependency cannot exist: refused before any read. */
function dependencyName(name: string): string {
  if (!DEPENDENCY_NAME.test(name))
    throw new LedgerError("invalid_body", "A dependency name is letters, digits and . _ : - only, at most 64.");
  return name;
}

export const GET = apiRoute<Params>(["admin"], async ({ ledger, params }) =>
  json(await breakerSettingsHistory(ledger, dependencyName(params.name))),
);

export const PUT = apiRoute<Params>(["admin"], async ({ req, ledger, params, actor, now }) => {
  const name = dependencyName(params.name);
  const body = await readJson(req, breakerSettingsSchema);
  const result = await putBreakerSettings(ledger, name, body, actor, now);
  return json({ dependency: name, changed: result.changed, ...result.settings });
});

const refused = otherMethods("GET", "PUT");
export const POST = refused.POST;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
