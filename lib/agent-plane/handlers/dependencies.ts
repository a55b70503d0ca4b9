// /api/v1/dependencies/{name}/breaker: a dependency's breaker settings and their versions; an edit (admin scope)
// writes a new version, naming the version it replaces (409 when another edit came first).
import { jsonReply } from "@/lib/platform/http/problem";
import { validBody } from "@/lib/platform/http/request-body";
import { breakerSettingsSchema, DEPENDENCY_NAME } from "@/lib/ledger/dependencies/breaker-settings-schema";
import { breakerSettingsHistory, putBreakerSettings } from "@/lib/ledger/dependencies/breaker-settings";
import { LedgerError } from "@/lib/ledger/errors";
import { keyed } from "../endpoint";

/** A name no contract can give a dependency cannot exist: refused before any read. */
function dependencyName(name: string): string {
  if (!DEPENDENCY_NAME.test(name))
    throw new LedgerError("invalid_body", "A dependency name is letters, digits and . _ : - only, at most 64.");
  return name;
}

export const getBreakerEndpoint = keyed(["admin"], async ({ ledger, params }) =>
  jsonReply(await breakerSettingsHistory(ledger, dependencyName(params.name!))),
);

export const putBreakerEndpoint = keyed(["admin"], async ({ body, ledger, params, actor, now }) => {
  const name = dependencyName(params.name!);
  const result = await putBreakerSettings(ledger, name, validBody(await body(), breakerSettingsSchema), actor, now);
  return jsonReply({ dependency: name, changed: result.changed, ...result.settings });
});
