// A contract's error rules on a real database: stored and versioned with the contract, and read by the outcome
// command, so Stripe's documented 409 is retried with the same key and its 402 fails, both reasons naming the rule.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";
import { agent, alice, at, contractFor, T0 } from "@/tests/helpers/ledger-fixtures";
import { claimLease } from "@/lib/ledger/commands/lease";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { planOperation } from "@/lib/ledger/commands/plan";
import type { ReportedError } from "@/lib/retry-gate/types";
import { getContract, listContractVersions, putContract } from "./contract-versions";
import { STARTER_RULE_SETS } from "./starter-rules";

const STRIPE = STARTER_RULE_SETS.find((s) => s.id === "stripe")?.rules ?? [];
const IN_PROGRESS =
  '{"error":{"code":"idempotency_key_in_use","message":"There is currently another in-progress request using this ' +
  "Idempotent Key (that probably means you submitted twice, and the other request is still going through). " +
  'Please try again later.","type":"invalid_request_error"}}';
const DECLINED =
  '{"error":{"code":"card_declined","decline_code":"generic_decline","message":"Your card was declined.","type":"card_error"}}';

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => t.close());

async function failOnce(tool: string, error: ReportedError, idempotencyKey?: string) {
  const plan = { tool, args: { amount: 100 }, ...(idempotencyKey ? { idempotencyKey } : {}) };
  const { operation } = await planOperation(t.ledger, plan, agent, T0);
  const { fence } = await claimLease(t.ledger, operation.id, { workerId: "w1", leaseMs: 60_000 }, agent, T0);
  await dispatchOperation(t.ledger, operation.id, { fence }, agent, at(1));
  return reportOutcome(t.ledger, operation.id, { fence, result: "failed", error }, agent, at(2), () => 0);
}

describe("error rules in a contract", () => {
  it("are a new version, kept in order, and an identical save keeps the version", async () => {
    await putContract(t.ledger, "payments.charge", contractFor("IDEMPOTENT"), alice, T0);
    const saved = await putContract(
      t.ledger,
      "payments.charge",
      contractFor("IDEMPOTENT", { errorRules: STRIPE }),
      alice,
      at(1),
    );
    expect(saved).toMatchObject({ changed: true, contract: { version: 2, errorRules: STRIPE } });
    const again = await putContract(
      t.ledger,
      "payments.charge",
      contractFor("IDEMPOTENT", { errorRules: STRIPE }),
      alice,
      at(2),
    );
    expect(again.changed).toBe(false);
    const versions = await listContractVersions(t.ledger, "payments.charge");
    expect(versions.map((v) => v.errorRules.length)).toEqual([STRIPE.length, 0]);
    // No rules and an empty list are the same rules: the first version's hash is kept.
    const cleared = await putContract(
      t.ledger,
      "payments.charge",
      contractFor("IDEMPOTENT", { errorRules: [] }),
      alice,
      at(3),
    );
    expect(cleared.contract.version).toBe(3);
    expect((await getContract(t.ledger, "payments.charge")).errorRules).toEqual([]);
  });

  it("retry Stripe's 409 in progress with the same key and fail its 402 without a retry, naming the rule", async () => {
    await putContract(t.ledger, "payments.charge", contractFor("IDEMPOTENT", { errorRules: STRIPE }), alice, T0);
    const busy = await failOnce("payments.charge", { httpStatus: 409, message: IN_PROGRESS }, "k1");
    expect(busy.phase).toBe("RETRY_SCHEDULED");
    expect(busy.decision.action).toBe("RETRY_SAME_KEY");
    expect(busy.decision.reason).toContain("rule 1 of payments.charge: 409 idempotency_key_in_use means");
    const declined = await failOnce("payments.charge", { httpStatus: 402, message: DECLINED }, "k2");
    expect(declined.phase).toBe("FAILED");
    expect(declined.decision.action).toBe("STOP");
    expect(declined.decision.reason).toContain("rule 2 of payments.charge: 402 means");
  });

  it("leave an error no rule matches to the global table (a 409 of another kind is fatal)", async () => {
    await putContract(t.ledger, "payments.charge", contractFor("IDEMPOTENT", { errorRules: STRIPE }), alice, T0);
    const other = await failOnce(
      "payments.charge",
      {
        httpStatus: 409,
        message: '{"error":{"type":"idempotency_error"}}',
      },
      "k3",
    );
    expect(other.phase).toBe("FAILED");
    expect(other.decision.reason).not.toContain("rule ");
  });

  it("make a failure an UNKNOWN outcome when a rule says the effect may have happened", async () => {
    const rules = [
      {
        when: { httpStatus: [500, 599] as [number, number] },
        then: "unknown" as const,
        why: "a 5xx may follow the write",
      },
    ];
    await putContract(t.ledger, "ledger.post", contractFor("REPLAYABLE", { errorRules: rules }), alice, T0);
    const after = await failOnce("ledger.post", { httpStatus: 502 });
    expect(after.phase).toBe("UNKNOWN");
    expect(after.decision.action).toBe("RECONCILE");
  });
});
