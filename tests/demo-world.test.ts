// The demo world end to end, without a browser: the real providers, the real demo agent (in-process, and as a child
// that is SIGKILLed), the real agent plane (lib/agent-plane) over HTTP on a test database, and a scripted "person"
// doing what the console does.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LookupEvidencePanel } from "@/components/operations/lookup-evidence";
import { createApiKey } from "@/lib/platform/auth/api-keys";
import type { Ledger } from "@/lib/ledger/ledger";
import { DemoAgent } from "@/lib/demo/agent";
import { PAYMENTS_AUTH_ENV } from "@/lib/demo/config";
import { startProviderServer, type ProviderServer } from "@/lib/demo/providers/server";
import type { AppliedEffect } from "@/lib/demo/providers/store";
import { ensureDemoContracts } from "@/lib/demo/seed";
import { demoTool, type DemoTool } from "@/lib/demo/tools";
import type { Actor } from "@/lib/ledger/actor";
import { approveOperation } from "@/lib/ledger/commands/approval";
import { autoReconcile, LookupBackoff, lookupForOperation } from "@/lib/ledger/commands/auto-reconcile";
import { LedgerError } from "@/lib/ledger/errors";
import { reconcileSuggestion } from "@/lib/ledger/outbound/provider-lookup";
import { getOperation } from "@/lib/ledger/reads/operations";
import { reconcileOperation } from "@/lib/ledger/commands/reconcile";
import { recoverExpiredLeases } from "@/lib/ledger/commands/sweep";
import type { OutboundOptions } from "@/lib/services/outbound/send";
import { startAgentPlane, type AgentPlaneServer } from "@/tests/helpers/agent-plane";
import { createTestDb, type TestDb } from "@/tests/helpers/test-db";

const alice: Actor = { type: "user", id: "alice@example.test", label: "alice@example.test", role: "operator" };
const bob: Actor = { type: "user", id: "bob@example.test", label: "bob@example.test", role: "operator" };
const PAYMENTS_AUTH = "Bearer sk_demo_world_test_0123456789";
/** The demo providers listen on loopback: reachable as with OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on, which the demo sets. */
const LOOPBACK: OutboundOptions = { allowPrivate: true };
/** Operations the demo run makes before the books are checked ("a few hundred"). */
const RUN_OPERATIONS = Number(process.env.OPLEDGER_DEMO_TEST_OPERATIONS ?? 300);

let t: TestDb;
let ledger: AgentPlaneServer;
let ledgerUrl: string;
let providers: ProviderServer;
let apiKey: string;

function tool(name: string): DemoTool {
  const found = demoTool(name);
  if (!found) throw new Error(`no demo tool ${name}`);
  return found;
}

function agent(extra: Partial<ConstructorParameters<typeof DemoAgent>[0]> = {}): DemoAgent {
  return new DemoAgent({
    ledgerUrl,
    apiKey,
    providerUrl: providers.url,
    paymentsAuthorization: PAYMENTS_AUTH,
    leaseMs: 1500,
    providerTimeoutMs: 500,
    maxWaitMs: 1000,
    resumeEveryMs: 300,
    log: () => undefined,
    ...extra,
  });
}

function effectsOf(operationId: string): AppliedEffect[] {
  return providers.store.effects.filter((e) => e.operationId === operationId);
}

async function eventually<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  t = await createTestDb();
  // The agent plane uses the process-wide ledger and start-up; here they are the test database and nothing.
  const globals = globalThis as unknown as { opledgerLedger?: Ledger; opledgerStarted?: Promise<void> };
  globals.opledgerLedger = t.ledger;
  globals.opledgerStarted = Promise.resolve();
  process.env[PAYMENTS_AUTH_ENV] = PAYMENTS_AUTH;

  ledger = await startAgentPlane();
  ledgerUrl = ledger.url;

  providers = await startProviderServer({ paymentsAuthorization: PAYMENTS_AUTH, rolloutMs: 500, hangMs: 5000 });
  const now = new Date();
  await ensureDemoContracts(t.ledger, providers.url, now);
  apiKey = (
    await createApiKey(
      t.ledger,
      { name: "demo agent (test)", scopes: ["agent"] },
      { type: "system", id: "system", label: "test" },
      now,
    )
  ).key;
}, 60_000);

afterAll(async () => {
  await providers.close();
  await ledger.close();
  const globals = globalThis as unknown as { opledgerLedger?: Ledger; opledgerStarted?: Promise<void> };
  delete globals.opledgerLedger;
  delete globals.opledgerStarted;
  delete process.env[PAYMENTS_AUTH_ENV];
  await t.close();
});

describe("the demo world", () => {
  it("an UNKNOWN payment is reconciled through the provider lookup and ends RECONCILED with the provider's id", async () => {
    providers.faults.add({ tool: "payments", fault: "timeout_after_commit", count: 1 });
    const result = await agent().callOnce(0, tool("payments.charge"), {
      customer: "cus_ada",
      amountCents: 4200,
      currency: "EUR",
    });
    expect(result?.status).toBe("needs_reconcile");
    const id = result?.operation.id ?? "";
    expect((await getOperation(t.ledger, id, new Date())).phase).toBe("UNKNOWN");
    const [charge] = effectsOf(id);
    expect(charge).toBeDefined();

    const evidence = await lookupForOperation(t.ledger, id, new Date(), LOOPBACK);
    expect(evidence).toMatchObject({ ok: true, status: 200, applied: true, providerId: charge?.id });
    const suggestion = reconcileSuggestion(evidence);
    expect(suggestion).toEqual({ outcome: "applied", providerId: charge?.id });
    // What the Reconcile dialog shows the person (the console wiring itself is not part of this test).
    const shown = renderToStaticMarkup(createElement(LookupEvidencePanel, { evidence }));
    expect(shown).toContain('data-applied="applied"');
    expect(shown).toContain("Effect happened");
    expect(shown).toContain(charge?.id ?? "?");
    expect(shown).toContain("HTTP 200");
    await reconcileOperation(
      t.ledger,
      id,
      { outcome: "applied", providerId: charge?.id, evidence, reason: "the provider has the charge" },
      alice,
      new Date(),
    );

    const op = await getOperation(t.ledger, id, new Date());
    expect(op).toMatchObject({
      phase: "RECONCILED",
      evidence: "applied",
      providerId: charge?.id,
      decision: { action: "STOP" },
    });
    // The agent coming back to it changes nothing, and the customer was charged once.
    await agent().resumeOnce();
    expect(effectsOf(id)).toHaveLength(1);
  }, 60_000);

  it("a second email goes out only because a person approved it, and exactly two reach the provider", async () => {
    providers.faults.add({ tool: "email", fault: "timeout_after_commit", count: 1 });
    const demo = agent();
    const result = await demo.callOnce(0, tool("email.send"), {
      to: "grace@example.com",
      template: "receipt",
      ref: "t2",
    });
    expect(result?.status).toBe("needs_reconcile");
    const id = result?.operation.id ?? "";
    expect(effectsOf(id)).toHaveLength(1);

    // No lookup exists for email: a person decides. Here they judge it did not go out.
    expect(await lookupForOperation(t.ledger, id, new Date(), LOOPBACK)).toMatchObject({ ok: false });
    await reconcileOperation(
      t.ledger,
      id,
      {
        outcome: "not_applied",
        evidence: { note: "customer says no email" },
        reason: "customer says no email arrived",
      },
      alice,
      new Date(),
    );
    // The agent asks to go again; the gate sends it to the approvals queue instead of sending.
    await eventually("the retry to wait for approval", async () => {
      await demo.resumeOnce();
      return (await getOperation(t.ledger, id, new Date())).phase === "AWAITING_APPROVAL";
    });
    expect(effectsOf(id)).toHaveLength(1);

    await approveOperation(t.ledger, id, { reason: "resend the receipt once" }, bob, new Date());
    await eventually("the approved retry to be confirmed", async () => {
      await demo.resumeOnce();
      return (await getOperation(t.ledger, id, new Date())).phase === "CONFIRMED";
    });
    const emails = effectsOf(id);
    expect(emails.map((e) => e.attempt)).toEqual([1, 2]);
    const op = await getOperation(t.ledger, id, new Date());
    const approvals = op.audit.filter((a) => a.action === "operation.approved");
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ actorType: "user", actorId: bob.id });
    expect(approvals[0]?.data).toMatchObject({ grantedAttempt: 2 });
  }, 60_000);

  it(
    `over a run of ${RUN_OPERATIONS} operations with faults, kills and an outage, no effect was applied twice for ` +
      "one operation unless a person approved it",
    async () => {
      providers.faults.setDefaultRate(0.15);
      // Breakers do open here (faults, kills, timeouts on a busy machine); a short cooldown keeps the run moving.
      await t.db.dependency.updateMany({ data: { cooldownMs: 1500 } });
      const before = await t.db.operation.count();
      const backoff = new LookupBackoff(300, 2000);
      const log: string[] = [];
      let kills = 0;
      let child: ChildProcess | null = null;

      const spawnAgent = (): ChildProcess => {
        const started = spawn(
          process.execPath,
          ["--import", "tsx", path.join(process.cwd(), "scripts", "demo-agent.ts")],
          {
            cwd: process.cwd(),
            env: {
              PATH: process.env.PATH,
              NODE_ENV: "test",
              OPLEDGER_DEMO_API_KEY: apiKey,
              OPLEDGER_DEMO_LEDGER_URL: ledgerUrl,
              OPLEDGER_DEMO_PROVIDER_URL: providers.url,
              [PAYMENTS_AUTH_ENV]: PAYMENTS_AUTH,
              OPLEDGER_DEMO_AGENT_WORKERS: "4",
              OPLEDGER_DEMO_PACE_MS: "50",
              OPLEDGER_DEMO_LEASE_MS: "1500",
              OPLEDGER_DEMO_PROVIDER_TIMEOUT_MS: "1000",
              OPLEDGER_DEMO_RESUME_EVERY_MS: "400",
            },
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        started.stdout?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
        started.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
        return started;
      };

      /** What a person on call does in the console, and what the server's sweep does. */
      const operatorTick = async (): Promise<void> => {
        const now = new Date();
        await recoverExpiredLeases(t.ledger, now);
        await autoReconcile(t.ledger, now, { backoff, notAppliedGraceMs: 1000, outbound: LOOPBACK });
        for (const op of await t.db.operation.findMany({ where: { phase: "AWAITING_APPROVAL" }, take: 50 })) {
          await approveOperation(t.ledger, op.id, { reason: "approved on call" }, bob, new Date()).catch(ignoreRace);
        }
        const unknowns = await t.db.operation.findMany({
          where: {
            phase: "UNKNOWN",
            effect: { not: "PURE" },
            tool: { not: "deploy.release" },
            updatedAt: { lt: new Date(Date.now() - 1000) },
          },
          take: 50,
        });
        for (const op of unknowns) {
          if (op.tool === "email.send") {
            // No lookup: the person decides to resend, and says so. This is the only way to a second email.
            await reconcileOperation(
              t.ledger,
              op.id,
              {
                outcome: "not_applied",
                approveRetry: true,
                evidence: { note: "no lookup" },
                reason: "resend: cannot prove it went out",
              },
              alice,
              new Date(),
            ).catch(ignoreRace);
            continue;
          }
          const evidence = await lookupForOperation(t.ledger, op.id, new Date(), LOOPBACK);
          const suggestion = reconcileSuggestion(evidence);
          if (!suggestion) continue;
          await reconcileOperation(
            t.ledger,
            op.id,
            {
              ...suggestion,
              providerId: suggestion.outcome === "applied" ? (suggestion.providerId ?? undefined) : undefined,
              evidence,
              reason: "per the provider lookup",
            },
            alice,
            new Date(),
          ).catch(ignoreRace);
        }
      };

      try {
        child = spawnAgent();
        providers.faults.add({ tool: "deploy", fault: "outage", durationMs: 4000 });
        let nextKill = Date.now() + 6000;
        const deadline = Date.now() + 240_000;
        while ((await t.db.operation.count()) - before < RUN_OPERATIONS) {
          if (Date.now() > deadline) {
            const agent =
              child?.exitCode === null && child?.signalCode === null
                ? "running"
                : `exited: code ${child?.exitCode}, signal ${child?.signalCode}`;
            throw new Error(
              `the demo run made only ${(await t.db.operation.count()) - before} operations (agent ${agent})\n${log.join("")}`,
            );
          }
          await operatorTick();
          if (Date.now() > nextKill && child) {
            child.kill("SIGKILL");
            kills++;
            await new Promise((resolve) => setTimeout(resolve, 300));
            child = spawnAgent();
            nextKill = Date.now() + 6000 + Math.random() * 6000;
          }
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      } finally {
        // An agent that already exited (it would have said why in the log) emits no "exit" again: waiting for it
        // would hide the deadline's error behind the test's timeout.
        const running = child;
        if (running && running.exitCode === null && running.signalCode === null) {
          const exited = new Promise((resolve) => running.once("exit", resolve));
          running.kill("SIGTERM");
          const forced = setTimeout(() => running.kill("SIGKILL"), 5000);
          await exited;
          clearTimeout(forced);
        }
        providers.faults.setDefaultRate(0);
      }
      // Let the last leases expire and the sweep, the lookups and the person finish what is theirs.
      await new Promise((resolve) => setTimeout(resolve, 1600));
      for (let i = 0; i < 5; i++) await operatorTick();

      // The books: for every operation, each effect after the first was an attempt a person granted.
      const effects = providers.store.effects;
      expect(effects.every((e) => e.operationId !== null && e.attempt !== null)).toBe(true);
      const byOperation = new Map<string, AppliedEffect[]>();
      for (const e of effects)
        byOperation.set(e.operationId ?? "", [...(byOperation.get(e.operationId ?? "") ?? []), e]);
      const approvals = await t.db.auditEvent.findMany({
        where: { action: "operation.approved", actorType: "user" },
      });
      const granted = new Map<string, Set<number>>();
      for (const a of approvals) {
        const attempt = (JSON.parse(a.data ?? "{}") as { grantedAttempt?: number }).grantedAttempt;
        if (attempt !== undefined) granted.set(a.subjectId, (granted.get(a.subjectId) ?? new Set()).add(attempt));
      }
      let duplicates = 0;
      let approvedDuplicates = 0;
      const offenders: string[] = [];
      for (const [operationId, list] of byOperation) {
        const attempts = list.map((e) => e.attempt ?? 0);
        expect(new Set(attempts).size).toBe(attempts.length);
        for (const extra of list.slice(1)) {
          duplicates++;
          if (granted.get(operationId)?.has(extra.attempt ?? -1)) approvedDuplicates++;
          else offenders.push(`${operationId} (${list[0]?.kind}): attempts ${attempts.join(", ")}`);
        }
      }
      expect(offenders).toEqual([]);
      expect(approvedDuplicates).toBe(duplicates);

      const operations = (await t.db.operation.count()) - before;
      const reconciledBySystem = await t.db.auditEvent.count({
        where: { action: "operation.reconciled", actorType: "system" },
      });
      const breakerOpened = await t.db.auditEvent.count({ where: { action: "dependency.breaker_open" } });
      const phases = await t.db.operation.groupBy({
        by: ["tool", "phase"],
        _count: { _all: true },
        orderBy: [{ tool: "asc" }, { phase: "asc" }],
      });
      console.log(
        `demo run: ${operations} operations, ${effects.length} effects at the providers for ${byOperation.size} operations ` +
          `(${duplicates} second effects, all ${approvedDuplicates} approved by a person), ${kills} agent kills, ` +
          `${reconciledBySystem} auto-reconciled by lookup, breaker opened ${breakerOpened} time(s); ` +
          phases.map((p) => `${p.tool} ${p.phase} ${p._count._all}`).join(", "),
      );
      expect(operations).toBeGreaterThanOrEqual(RUN_OPERATIONS);
      expect(kills).toBeGreaterThan(0);
    },
    300_000,
  );
});

function ignoreRace(error: unknown): void {
  // The agent, the sweep or the other "person" moved the operation first.
  if (error instanceof LedgerError) return;
  throw error;
}
