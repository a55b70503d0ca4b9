// The demo world's tool contracts: one realistic tool per side-effect class, reconciled by looking up the demo
// providers.
import type { ContractBody } from "@/lib/ledger/contracts/contract-schema";
import { demoProviderUrl, PAYMENTS_AUTH_ENV } from "./config";

export function demoContracts(providerUrl: string): Record<string, ContractBody> {
  return {
    "payments.charge": {
      effect: "IDEMPOTENT",
      idempotencyKey: "required",
      // Not automatic on purpose: an UNKNOWN charge is what a newcomer reconciles by hand, with the lookup's evidence.
      reconcile: {
        method: "lookup",
        urlTemplate: `${providerUrl}/payments/v1/charges/by-key/{idempotencyKey}`,
        timeoutMs: 2000,
        authHeaderEnv: PAYMENTS_AUTH_ENV,
        providerIdField: "id",
        statusField: "status",
        appliedValues: ["succeeded"],
        auto: false,
      },
      approval: "not_required",
      maxAttempts: 5,
      backoff: { baseMs: 200, maxMs: 5000 },
      keyRetentionMs: 24 * 60 * 60 * 1000,
      dependency: "payments-api",
      description:
        "Charge a customer's card. The provider honours idempotency keys for 24 hours and finds a charge by its key.",
    },
    "email.send": {
      effect: "NON_RETRYABLE",
      idempotencyKey: "unsupported",
      reconcile: null,
      approval: "not_required",
      maxAttempts: 1,
      backoff: { baseMs: 1000, maxMs: 1000 },
      dependency: "email-api",
      description: "Send an email to a customer. No idempotency keys and no lookup: a retry needs a person.",
    },
    "deploy.release": {
      effect: "REPLAYABLE",
      idempotencyKey: "required",
      // The key is sent as the deployment's client token, and the recovery sweep looks it up by itself.
      reconcile: {
        method: "lookup",
        urlTemplate: `${providerUrl}/deploy/v1/deployments?clientToken={idempotencyKey}`,
        timeoutMs: 2000,
        providerIdField: "id",
        statusField: "status",
        appliedValues: ["rolling_out", "live"],
        auto: true,
      },
      approval: "not_required",
      maxAttempts: 3,
      backoff: { baseMs: 500, maxMs: 10_000 },
      dependency: "deploy-api",
      description: "Roll out a release. Safe to repeat only after checking the deployment's status by client token.",
    },
    "crm.update": {
      effect: "UNKNOWN",
      idempotencyKey: "optional",
      reconcile: { method: "manual" },
      approval: "not_required",
      maxAttempts: 2,
      backoff: { baseMs: 500, maxMs: 5000 },
      dependency: "crm",
      description: "Update a CRM record through a vendor API whose retry behaviour nobody can vouch for.",
    },
    "docs.search": {
      effect: "PURE",
      idempotencyKey: "optional",
      reconcile: null,
      approval: "not_required",
      maxAttempts: 4,
      backoff: { baseMs: 100, maxMs: 2000 },
      description: "Search the documentation index. Reads only.",
    },
    "refunds.issue": {
      effect: "IDEMPOTENT",
      idempotencyKey: "required",
      reconcile: {
        method: "lookup",
        urlTemplate: `${providerUrl}/payments/v1/refunds/by-key/{idempotencyKey}`,
        timeoutMs: 2000,
        authHeaderEnv: PAYMENTS_AUTH_ENV,
        providerIdField: "id",
        statusField: "status",
        appliedValues: ["succeeded"],
        auto: false,
      },
      approval: "required",
      maxAttempts: 3,
      backoff: { baseMs: 200, maxMs: 5000 },
      keyRetentionMs: 24 * 60 * 60 * 1000,
      dependency: "payments-api",
      description: "Refund a charge. Every refund is approved by a person first.",
    },
  };
}

/** The contracts for the default provider address. */
export const DEMO_CONTRACTS: Record<string, ContractBody> = demoContracts(demoProviderUrl({}));
