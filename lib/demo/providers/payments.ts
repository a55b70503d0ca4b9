// A payments API in the style of Stripe: charges and refunds honour Idempotency-Key (same key, same answer, kept 24 h)
// and can be looked up by key.
import { canonicalJson, sha256 } from "@/lib/ledger/canonical-json";
import {
  asRecord,
  header,
  problem,
  type ProviderContext,
  type ProviderRequest,
  type Reply,
  type RouteMatch,
  type Router,
} from "./routes";

interface PaymentsOptions {
  /** The exact Authorization header value required on every payments request; null accepts any. */
  authorization: string | null;
}

const CHARGES = /^\/payments\/v1\/charges$/;
const REFUNDS = /^\/payments\/v1\/refunds$/;
const BY_KEY = /^\/payments\/v1\/(charges|refunds)\/by-key\/([^/]+)$/;

type Kind = "charge" | "refund";

function validate(kind: Kind, body: Record<string, unknown>): string | null {
  const amount = body.amountCents;
  if (typeof amount !== "number" || !Number.isInteger(amount) || amount <= 0)
    return "amountCents must be a positive integer";
  if (kind === "charge") {
    if (typeof body.customer !== "string" || !body.customer) return "customer is required";
    if (typeof body.currency !== "string" || !/^[A-Z]{3}$/.test(body.currency))
      return "currency must be a 3-letter code";
  } else if (typeof body.charge !== "string" || !body.charge) {
    return "charge is required";
  }
  return null;
}

/** POST with a key: the stored answer for a known key, otherwise a new charge or refund. */
function create(
  kind: Kind,
  req: ProviderRequest,
  ctx: ProviderContext,
  key: string,
  body: Record<string, unknown>,
): RouteMatch {
  const scope = `${kind}s`;
  const requestHash = sha256(canonicalJson(body));
  const replay = (): Reply | null => {
    const stored = ctx.store.getKey(scope, key);
    if (!stored) return null;
    if (stored.requestHash !== requestHash) {
      return problem(
        422,
        "idempotency_key_reused",
        "Keys for idempotent requests can only be used with the same parameters they were first used with.",
      );
    }
    return { status: stored.status, body: stored.body, headers: { "idempotent-replayed": "true" } };
  };
  return {
    provider: "payments",
    kind: "effect",
    commit: () => {
      const replayed = replay();
      if (replayed) return replayed;
      const id = ctx.newId(kind === "charge" ? "ch_" : "re_");
      const answer = {
        ...body,
        id,
        object: kind,
        status: "succeeded",
        idempotencyKey: key,
        created: new Date(ctx.now()).toISOString(),
      };
      ctx.store.addEffect({
        provider: "payments",
        kind,
        id,
        idempotencyKey: key,
        clientToken: null,
        operationId: req.operationId,
        attempt: req.attempt,
        data: body,
      });
      ctx.store.putKey({ scope, key, requestHash, status: 200, body: answer });
      return { status: 200, body: answer };
    },
    refuse: () => {
      // A known key is answered from memory, never refused anew.
      if (ctx.store.getKey(scope, key)) return null;
      const declined =
        kind === "charge"
          ? { error: { type: "card_error", code: "card_declined", message: "Your card was declined." } }
          : {
              error: {
                type: "invalid_request_error",
                code: "charge_already_refunded",
                message: "This charge has already been refunded.",
              },
            };
      // Like Stripe, a definite refusal is stored under the key too: a retry with it gets the same refusal.
      ctx.store.putKey({ scope, key, requestHash, status: kind === "charge" ? 402 : 400, body: declined });
      return { status: kind === "charge" ? 402 : 400, body: declined };
    },
  };
}

export function paymentsRouter(options: PaymentsOptions): Router {
  return (req, ctx) => {
    const post = req.method === "POST" && (CHARGES.test(req.path) || REFUNDS.test(req.path));
    const lookup = req.method === "GET" ? BY_KEY.exec(req.path) : null;
    if (!post && !lookup) return null;
    if (options.authorization !== null && header(req, "authorization") !== options.authorization) {
      return problem(401, "unauthorized", "Invalid API key provided.");
    }
    if (lookup) {
      const kind: Kind = lookup[1] === "refunds" ? "refund" : "charge";
      const key = decodeURIComponent(lookup[2] ?? "");
      return {
        provider: "payments",
        kind: "lookup",
        commit: () => {
          const effect = ctx.store.byKey(kind, key);
          if (!effect)
            return problem(404, "resource_missing", `No ${kind} was created with the idempotency key ${key}.`);
          return {
            status: 200,
            body: {
              ...effect.data,
              id: effect.id,
              object: kind,
              status: "succeeded",
              idempotencyKey: key,
              created: effect.at,
            },
          };
        },
        refuse: () => null,
      };
    }
    const kind: Kind = CHARGES.test(req.path) ? "charge" : "refund";
    const key = header(req, "idempotency-key");
    if (!key) return problem(400, "idempotency_key_missing", "This endpoint needs an Idempotency-Key header.");
    const body = asRecord(req.body);
    const invalid = validate(kind, body);
    if (invalid) return problem(400, "parameter_invalid", invalid);
    return create(kind, req, ctx, key, body);
  };
}
