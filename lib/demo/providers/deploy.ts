// A deployment API: every POST starts a new rollout (a repeat rolls out again), and the client token finds the rollout
// it started.
import { asRecord, problem, type Router } from "./routes";

const DEPLOYMENTS = "/deploy/v1/deployments";

interface DeployOptions {
  /** How long a rollout stays "rolling_out" before it is "live". */
  rolloutMs: number;
}

export function deployRouter(options: DeployOptions): Router {
  return (req, ctx) => {
    if (req.path !== DEPLOYMENTS) return null;
    if (req.method === "GET") {
      const token = req.query.get("clientToken");
      if (!token) return problem(400, "client_token_missing", "Look deployments up with ?clientToken=...");
      return {
        provider: "deploy",
        kind: "lookup",
        commit: () => {
          const effect = ctx.store.byToken("deployment", token);
          if (!effect) return problem(404, "not_found", `No deployment was started with the client token ${token}.`);
          const live = ctx.now() - Date.parse(effect.at) >= options.rolloutMs;
          return {
            status: 200,
            body: {
              ...effect.data,
              id: effect.id,
              status: live ? "live" : "rolling_out",
              clientToken: token,
              startedAt: effect.at,
            },
          };
        },
        refuse: () => null,
      };
    }
    if (req.method !== "POST") return null;
    const body = asRecord(req.body);
    const clientToken = body.clientToken;
    if (typeof clientToken !== "string" || !clientToken)
      return problem(400, "client_token_missing", "clientToken is required");
    if (typeof body.service !== "string" || typeof body.version !== "string") {
      return problem(400, "parameter_invalid", "service and version are required");
    }
    return {
      provider: "deploy",
      kind: "effect",
      commit: () => {
        const id = ctx.newId("dep_");
        ctx.store.addEffect({
          provider: "deploy",
          kind: "deployment",
          id,
          idempotencyKey: null,
          clientToken,
          operationId: req.operationId,
          attempt: req.attempt,
          data: { service: body.service, version: body.version },
        });
        return {
          status: 201,
          body: { id, status: "rolling_out", service: body.service, version: body.version, clientToken },
        };
      },
      refuse: () => problem(409, "rollout_in_progress", `Another rollout of ${String(body.service)} is in progress.`),
    };
  };
}
