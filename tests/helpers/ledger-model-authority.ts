// docs/authority.md for the model-based ledger tests: the principals who plan, approve and intrude, what the ledger
// must answer each of them, and the approval rules an operation's audit trail must show, compared by principal id.
import { expect } from "vitest";
import type { AuditEvent, Operation } from "@/lib/platform/generated/prisma/client";
import { personOf, principalId, type Actor } from "@/lib/ledger/actor";
import type { LedgerErrorCode } from "@/lib/ledger/errors";
import { approvalTtl } from "@/lib/retry-gate/approval-expiry";
import { agent, alice, bob } from "./ledger-fixtures";

export const otherAgent: Actor = {
  type: "api_key",
  id: "other-agent-key",
  label: "other-agent (opl_o…)",
  scopes: ["agent"],
  person: null,
};
/** Alice's own key: it plans as an agent and acts as Alice, so four-eyes keeps her from approving what it asked. */
export const alicesKey: Actor = {
  type: "api_key",
  id: "alice-key",
  label: "alice-bot (opl_a…)",
  scopes: ["agent", "operator"],
  person: { id: alice.id, label: alice.label, role: "operator" },
};
export const carol: Actor = { type: "user", id: "carol@example.test", label: "carol@example.test", role: "operator" };
/** Bob's chat-ops key: an approval through it is Bob's. */
export const bobsKey: Actor = {
  type: "api_key",
  id: "bob-key",
  label: "bob-ops (opl_b…)",
  scopes: ["operator"],
  person: { id: bob.id, label: bob.label, role: "operator" },
};
export const viewer: Actor = { type: "user", id: "vic@example.test", label: "vic@example.test", role: "viewer" };
/** Every scope and no person: it may do what an admin key does except open the human gate. */
export const bootstrap: Actor = {
  type: "api_key",
  id: "bootstrap",
  label: "bootstrap (opl_boot…)",
  scopes: ["agent", "operator", "admin", "metrics"],
  person: null,
};

/** The keys that plan and then drive their operations (several workers of one key share it). */
export const PLANNERS = { agent, otherAgent, alicesKey } satisfies Record<string, Actor>;
export type PlannerName = keyof typeof PLANNERS;
export const PLANNER_NAMES = Object.keys(PLANNERS) as PlannerName[];

/** The keys with the agent scope alone: each may write only about the operations it planned. */
export const AGENT_KEY_IDS: ReadonlySet<string> = new Set([agent.id, otherAgent.id]);

/** Who may be asked to approve or reconcile: operator persons, their keys, and principals the gate must refuse. */
export const DECIDERS = {
  alice,
  bob,
  carol,
  bobsKey,
  alicesKey,
  viewer,
  agent,
  otherAgent,
  bootstrap,
} satisfies Record<string, Actor>;
export type DeciderName = keyof typeof DECIDERS;
/** Mostly persons, so approvals and quorums happen; the refused principals often enough to be tried every run. */
export const DECIDER_DRAWS: DeciderName[] = [
  "alice",
  "alice",
  "bob",
  "bob",
  "carol",
  "bobsKey",
  "alicesKey",
  "viewer",
  "agent",
  "otherAgent",
  "bootstrap",
];

/** The only principals who may open the human gate in the model: the operator persons, directly or by their keys. */
export const GATE_PRINCIPALS: ReadonlySet<string> = new Set([alice, bob, carol].map(principalId));

/** A person with the operator role, directly or through a key bound to them (`requirePerson`). */
export function opensGate(actor: Actor): boolean {
  const person = personOf(actor);
  return person !== null && person.role !== "viewer";
}

function seesAll(actor: Actor): boolean {
  return actor.type !== "api_key" || actor.scopes.some((scope) => scope === "operator" || scope === "admin");
}

/** Whose lane a command runs in: only the planning key drives, operator keys share reconcile and reject. */
export type Lane = "agent" | "shared" | "person";

/**
 * docs/authority.md#own-operations: a key outside its lane on this operation is told it does not exist. In the agent's
 * lane only the planning key drives, whatever its other scopes; elsewhere an agent-only key sees only its own.
 */
export function outsideOwnOperations(actor: Actor, planner: Actor, lane: Lane): boolean {
  if (actor.type !== "api_key" || actor.id === planner.id) return false;
  return lane === "agent" || !seesAll(actor);
}

/** A principal as the audit trail names it: a key bound to a person is that person (`principalId`). */
export function eventPrincipal(event: Pick<AuditEvent, "actorType" | "actorId" | "onBehalfOf">): string {
  if (event.actorType === "user") return `user:${event.actorId}`;
  if (event.actorType === "api_key") return event.onBehalfOf ? `user:${event.onBehalfOf}` : `api_key:${event.actorId}`;
  return event.actorType;
}

/** The approval rules of one contract version, as the model put them. */
export interface ApprovalRules {
  approvals: number;
  approvalTtlMs: number | null;
}

/** A request for a person's approval, as the audit trail tells it. */
export interface ApprovalWait {
  /** When it started plus the contract version's approvalTtlMs: it may be approved up to this instant, not after. */
  deadline: number;
  /** The principals who approved this request so far, in order. */
  approvers: string[];
}

export interface ApprovalHistory {
  planner: string;
  /** The request the operation waits on at the end of the trail, if it waits. */
  wait: ApprovalWait | null;
  /** Attempts a person granted (`operation.approved`). */
  grants: number;
  /** The attempt the operation had when it expired, if it did. */
  expiredAtAttempt: number | null;
}

const APPROVAL_ACTIONS = ["operation.approved", "operation.approval_given"];
/** What may still be written about an EXPIRED operation: refusals only. */
const AFTER_EXPIRY = ["operation.stale_fence_rejected", "operation.duplicate_rejected"];

function dataOf(event: AuditEvent): Record<string, unknown> {
  return event.data ? (JSON.parse(event.data) as Record<string, unknown>) : {};
}

/**
 * Reads an operation's audit trail (in chain order) and checks docs/authority.md's approval rules on it: every approval
 * is an operator person's, never the planner's principal under four-eyes, never after the request's deadline, never
 * twice by one principal in a request; a grant has exactly the quorum's distinct persons; an expiry comes only after
 * the deadline, from opledger itself, and nothing moves or is sent after it.
 */
export function approvalHistory(trail: AuditEvent[], rules: ApprovalRules, fourEyes: boolean): ApprovalHistory {
  const planned = trail.find((e) => e.action === "operation.planned");
  if (!planned) throw new Error(`no operation.planned in the trail of ${trail[0]?.subjectId ?? "?"}`);
  const planner = eventPrincipal(planned);
  const ttl = approvalTtl(rules);
  let wait: ApprovalWait | null = null;
  let grants = 0;
  let expiredAtAttempt: number | null = null;
  for (const event of trail) {
    const at = event.createdAt.getTime();
    const label = `${event.action} (seq ${event.seq}) on ${event.subjectId}`;
    if (expiredAtAttempt !== null) {
      expect(AFTER_EXPIRY, `${label} after the operation expired`).toContain(event.action);
      continue;
    }
    // A phase change from anywhere but AWAITING_APPROVAL starts a new request or leaves none.
    if (event.toPhase !== null && event.fromPhase !== "AWAITING_APPROVAL") {
      wait = event.toPhase === "AWAITING_APPROVAL" ? { deadline: at + ttl, approvers: [] } : null;
    }
    if (APPROVAL_ACTIONS.includes(event.action)) {
      const who = eventPrincipal(event);
      expect(
        event.actorType === "user" || (event.actorType === "api_key" && event.onBehalfOf !== null),
        `${label} by ${who}: only a person opens the human gate`,
      ).toBe(true);
      expect(GATE_PRINCIPALS.has(who), `${label} by ${who}, who is no operator person`).toBe(true);
      if (fourEyes) expect(who, `${label}: four-eyes, the planner's principal approved`).not.toBe(planner);
      if (event.fromPhase === "AWAITING_APPROVAL") {
        expect(wait, `${label} with no request open`).not.toBeNull();
        expect(at, `${label} after the request's deadline`).toBeLessThanOrEqual(wait?.deadline ?? -1);
      }
      const before = wait?.approvers ?? [];
      expect(before, `${label}: ${who} approved this request twice`).not.toContain(who);
      const approvers = [...before, who];
      expect(dataOf(event), `${label}: the approvals it counts`).toMatchObject({
        approvals: approvers.length,
        quorum: rules.approvals,
      });
      if (event.action === "operation.approved") {
        expect(approvers.length, `${label}: a grant needs the quorum's distinct persons`).toBe(rules.approvals);
        grants++;
        wait = null;
      } else {
        expect(approvers.length, `${label}: a partial approval`).toBeLessThan(rules.approvals);
        expect(event.toPhase, label).toBe("AWAITING_APPROVAL");
        if (wait) wait.approvers = approvers;
      }
    } else if (event.action === "operation.approval_expired") {
      expect([event.actorType, event.fromPhase, event.toPhase], label).toEqual([
        "system",
        "AWAITING_APPROVAL",
        "EXPIRED",
      ]);
      expect(at, `${label} before the request's deadline`).toBeGreaterThan(wait?.deadline ?? Infinity);
      expiredAtAttempt = Number(dataOf(event).attempt);
      wait = null;
    } else if (event.fromPhase === "AWAITING_APPROVAL" && event.toPhase !== "AWAITING_APPROVAL") {
      wait = null;
    }
  }
  return { planner, wait, grants, expiredAtAttempt };
}

/** The approvers a row records, in order (`approversOf`). */
export function rowApprovers(row: Pick<Operation, "approvers">): string[] {
  return row.approvers ? row.approvers.split(",").filter(Boolean) : [];
}

/** Whether the request has run out by `now`: EXPIRED, or still waiting after its deadline (the sweep not yet by). */
export function requestExpired(row: Pick<Operation, "phase">, wait: ApprovalWait | null, now: number): boolean {
  if (row.phase === "EXPIRED") return true;
  return row.phase === "AWAITING_APPROVAL" && wait !== null && now > wait.deadline;
}

export type DecisionAnswer = LedgerErrorCode | "approval_given" | "approved" | "reconciled";

/** Who is asking, for whose operation, in what state. */
export interface Asking {
  actor: Actor;
  planner: Actor;
  row: Operation;
  wait: ApprovalWait | null;
  rules: ApprovalRules;
  now: number;
  fourEyes: boolean;
}

/** What approveOperation must answer, checked in the ledger's order. */
export function expectedApprove(a: Asking): DecisionAnswer {
  if (outsideOwnOperations(a.actor, a.planner, "person")) return "not_found";
  if (!opensGate(a.actor)) return "person_required";
  if (requestExpired(a.row, a.wait, a.now)) return "approval_expired";
  if (a.row.phase !== "AWAITING_APPROVAL" || !a.wait) return "not_awaiting_approval";
  const who = principalId(a.actor);
  if (a.fourEyes && who === principalId(a.planner)) return "four_eyes";
  if (a.wait.approvers.includes(who)) return "already_approved";
  return a.wait.approvers.length + 1 < a.rules.approvals ? "approval_given" : "approved";
}

/** What reconcileOperation must answer: the human gate first when it grants a retry, then the phase. */
export function expectedReconcile(a: Asking, grantsRetry: boolean): DecisionAnswer {
  if (outsideOwnOperations(a.actor, a.planner, "shared")) return "not_found";
  if (grantsRetry) {
    if (!opensGate(a.actor)) return "person_required";
    const who = principalId(a.actor);
    if (a.fourEyes && who === principalId(a.planner)) return "four_eyes";
    if ((a.wait?.approvers ?? []).includes(who)) return "already_approved";
  }
  if (a.row.phase !== "UNKNOWN") return "not_unknown";
  if (!grantsRetry) return "reconciled";
  return a.rules.approvals > 1 ? "approval_given" : "approved";
}

/**
 * What approveOperation may answer when others act at the same time (the phase and the approvers may change between
 * a read and the call): who is asking still fixes the refusals of the human gate, four-eyes and own operations.
 */
export function possibleApproveAnswers(actor: Actor, planner: Actor, fourEyes: boolean): DecisionAnswer[] {
  if (outsideOwnOperations(actor, planner, "person")) return ["not_found"];
  if (!opensGate(actor)) return ["person_required"];
  const settled: DecisionAnswer[] = ["approval_expired", "not_awaiting_approval"];
  if (fourEyes && principalId(actor) === principalId(planner)) return [...settled, "four_eyes"];
  return [...settled, "already_approved", "approval_given", "approved"];
}

/** What reconcileOperation may answer when others act at the same time. */
export function possibleReconcileAnswers(
  actor: Actor,
  planner: Actor,
  fourEyes: boolean,
  grantsRetry: boolean,
): DecisionAnswer[] {
  if (outsideOwnOperations(actor, planner, "shared")) return ["not_found"];
  if (!grantsRetry) return ["not_unknown", "reconciled"];
  if (!opensGate(actor)) return ["person_required"];
  if (fourEyes && principalId(actor) === principalId(planner)) return ["four_eyes"];
  return ["already_approved", "not_unknown", "approval_given", "approved"];
}
