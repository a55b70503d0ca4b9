// Fault injection for the demo providers: a default random rate plus rules set on demand (POST /_faults).
import { z } from "zod";
import { assertNever } from "@/lib/retry-gate/exhaustive";

export const PROVIDER_NAMES = ["payments", "email", "deploy", "search"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const FAULT_KINDS = [
  /** The effect is committed, then the answer never comes: the caller can only time out. */
  "timeout_after_commit",
  /** The socket is destroyed before anything is committed: the caller sees a reset and cannot tell. */
  "reset_before_commit",
  /** 429 with Retry-After, nothing committed. */
  "rate_limited",
  /** 500, nothing committed. */
  "server_error",
  /** The provider's own definite refusal (card declined, bad address, ...), nothing committed. */
  "client_error",
  /** Every request of the provider, lookups included, answers 503 while it lasts. */
  "outage",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What a request does: an effect (POST), a read that changes nothing, or a lookup of an earlier effect. */
export type RequestKind = "effect" | "read" | "lookup";

export const faultRuleSchema = z
  .object({
    /** Which provider; "*" for all of them. */
    tool: z.union([z.enum(PROVIDER_NAMES), z.literal("*")]),
    fault: z.enum(FAULT_KINDS),
    /** Chance per request while the rule holds (default 1). */
    rate: z.number().min(0).max(1).default(1),
    /** Only the next `count` requests that draw this fault; then the rule is spent. */
    count: z.int().min(1).max(100_000).optional(),
    /** The rule holds this long from now. */
    durationMs: z.int().min(1).max(86_400_000).optional(),
  })
  .strict();
export type FaultRuleInput = z.input<typeof faultRuleSchema>;

export const faultsBodySchema = z.union([
  faultRuleSchema,
  z.object({ defaultRate: z.number().min(0).max(1) }).strict(),
]);

export interface FaultRule {
  id: number;
  tool: ProviderName | "*";
  fault: FaultKind;
  rate: number;
  remaining: number | null;
  until: number | null;
}

/** How the default rate spreads over the faults, by weight; an outage is only ever set on purpose. */
const DEFAULT_MIX: readonly [FaultKind, number][] = [
  ["timeout_after_commit", 2],
  ["reset_before_commit", 2],
  ["rate_limited", 2],
  ["server_error", 2],
  ["client_error", 1],
];

function appliesTo(fault: FaultKind, kind: RequestKind): boolean {
  switch (fault) {
    case "outage":
      return true;
    case "client_error":
    case "timeout_after_commit":
    case "reset_before_commit":
    case "rate_limited":
    case "server_error":
      // Lookups stay honest except in an outage, so a reconciliation can be trusted once the provider answers.
      return kind !== "lookup";
    default:
      return assertNever(fault, "fault kind");
  }
}

export class FaultPlan {
  private rules: FaultRule[] = [];
  private nextId = 1;

  constructor(
    private defaultRate: number,
    private readonly random: () => number,
    private readonly now: () => number,
  ) {}

  get rate(): number {
    return this.defaultRate;
  }

  setDefaultRate(rate: number): void {
    this.defaultRate = Math.min(1, Math.max(0, rate));
  }

  add(input: FaultRuleInput): FaultRule {
    const parsed = faultRuleSchema.parse(input);
    const rule: FaultRule = {
      id: this.nextId++,
      tool: parsed.tool,
      fault: parsed.fault,
      rate: parsed.rate,
      remaining: parsed.count ?? null,
      until: parsed.durationMs === undefined ? null : this.now() + parsed.durationMs,
    };
    this.rules.push(rule);
    return rule;
  }

  /** Removes the rules of one provider, or all of them. */
  clear(tool?: ProviderName): void {
    this.rules = tool ? this.rules.filter((r) => r.tool !== tool) : [];
  }

  list(): FaultRule[] {
    this.expire();
    return this.rules.map((r) => ({ ...r }));
  }

  /** The fault this request meets, or null. The newest matching rule wins; then the default rate. */
  pick(tool: ProviderName, kind: RequestKind): FaultKind | null {
    this.expire();
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i];
      if (!rule || (rule.tool !== tool && rule.tool !== "*") || !appliesTo(rule.fault, kind)) continue;
      if (rule.rate < 1 && this.random() >= rule.rate) continue;
      if (rule.remaining !== null) {
        rule.remaining -= 1;
        if (rule.remaining <= 0) this.rules.splice(i, 1);
      }
      return rule.fault;
    }
    if (kind === "lookup" || this.defaultRate <= 0 || this.random() >= this.defaultRate) return null;
    const total = DEFAULT_MIX.reduce((sum, [, weight]) => sum + weight, 0);
    let draw = this.random() * total;
    for (const [fault, weight] of DEFAULT_MIX) {
      draw -= weight;
      if (draw < 0) return fault;
    }
    return null;
  }

  /** Whether an outage rule holds for the provider now (for status pages and tests). */
  inOutage(tool: ProviderName): boolean {
    this.expire();
    return this.rules.some((r) => r.fault === "outage" && (r.tool === tool || r.tool === "*") && r.rate >= 1);
  }

  private expire(): void {
    const now = this.now();
    this.rules = this.rules.filter((r) => r.until === null || r.until > now);
  }
}
