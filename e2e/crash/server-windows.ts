// The server-side crash windows: where the ledger server dies (a kill point of lib/testing/kill-point.ts), what each
// class is run with there, and where the gate must stand once the run that was cut off has lost its lease.
import { EFFECT_CLASSES, type ContractOptions, type CrashRow, type EffectClass } from "./matrix";
import type { TableSpec } from "./table";

/** How the agent of a case reaches the window. */
export type Approach =
  /** runTool until the ledger stops answering (the server died holding its answer). */
  | "agent"
  /** The provider loses the answer, the agent reports unknown and reconciles by lookup. */
  | "agent_reconciles"
  /** The agent is told to wait for a person, and a person approves. */
  | "person_approves"
  /** The agent dies right after dispatch, so the sweep takes its lease over. */
  | "agent_dies_after_dispatch"
  /** The agent dies right after the provider committed, so the sweep makes it UNKNOWN and auto-reconcile looks. */
  | "agent_dies_after_commit"
  /** The agent stalls holding its lease; once it ran out, a second worker's claim races the stalled one's dispatch. */
  | "stall_then_race";

export interface ServerWindow extends CrashRow {
  /** OPLEDGER_KILL_AT, or null when nothing is killed. */
  killAt: string | null;
  /**
   * Whether the window's answers are held at the point until every case of every such window has reached its own, then
   * one death covers them all (the API's points); otherwise the server dies for one case at a time, restarted in
   * between (the points in its own loops, which reach one operation at a time and must not be held).
   */
  together: boolean;
  approach: Approach;
  classes: readonly EffectClass[];
  contract: ContractOptions;
  afterCrash(effect: EffectClass): { phase: string; decision: string }[];
}

const PLANNED = [{ phase: "PLANNED", decision: "DISPATCH" }];
const STOPPED = (phase: string) => () => [{ phase, decision: "STOP" }];
/** A request that may have left: PURE is simply retried, every other class needs evidence first. */
const IN_FLIGHT = (effect: EffectClass) => [{ phase: "UNKNOWN", decision: effect === "PURE" ? "RETRY" : "RECONCILE" }];
const NOT_PURE = EFFECT_CLASSES.filter((c) => c !== "PURE");
/** The classes auto-reconcile may settle without a person (lib/ledger/commands/auto-reconcile.ts). */
const AUTO_CLASSES: readonly EffectClass[] = ["IDEMPOTENT", "REPLAYABLE"];

type WindowText = Pick<ServerWindow, "id" | "title" | "ambiguous" | "mapping" | "afterCrash">;

/**
 * A window at an API command's kill point, by default for every class with an agent that runs until the server dies.
 * Contracts here never let the sweep look effects up by itself, except in the auto-reconcile window: a lookup of the
 * server's own would race the windows that need the agent to reach the kill point.
 */
function afterCommit(
  command: string,
  text: WindowText,
  options: Partial<Pick<ServerWindow, "approach" | "classes" | "contract">> = {},
): ServerWindow {
  const defaults = { approach: "agent" as const, classes: EFFECT_CLASSES, contract: { auto: false } };
  return { ...text, killAt: `after_commit:${command}`, together: true, ...defaults, ...options };
}

export const SERVER_WINDOWS: ServerWindow[] = [
  afterCommit("plan", {
    id: "server_after_plan",
    title: "before the request is built (the server dies after the plan's commit)",
    ambiguous: false,
    mapping:
      "POST /operations committed (PLANNED, the key durable), the server SIGKILLed before the answer: the agent " +
      "never learnt the operation's id, runs the call again with the same key and finds it.",
    afterCrash: () => PLANNED,
  }),
  afterCommit("claim", {
    id: "server_after_claim",
    title: "after the claim's commit",
    ambiguous: false,
    mapping:
      "POST /claim committed (the lease is the agent's, fence 1), the answer lost: the operation is PLANNED " +
      "under a lease nobody uses until it runs out.",
    afterCrash: () => PLANNED,
  }),
  afterCommit("dispatch", {
    id: "server_after_dispatch",
    title: "after the dispatch's commit",
    ambiguous: true,
    mapping:
      "POST /dispatch committed (DISPATCHED, attempt 1), the answer lost: the provider was never called, but " +
      "the ledger cannot know; the sweep makes it UNKNOWN once the lease runs out.",
    afterCrash: IN_FLIGHT,
  }),
  afterCommit("outcome", {
    id: "server_after_outcome",
    title: "after the outcome's commit",
    ambiguous: false,
    mapping:
      "The provider applied the effect, POST /outcome committed CONFIRMED, the answer lost: the agent's " +
      "re-sends find no server and it gives up; running the call again is answered from the ledger.",
    afterCrash: STOPPED("CONFIRMED"),
  }),
  afterCommit(
    "reconcile",
    {
      id: "server_after_reconcile",
      title: "after the reconciliation's commit",
      ambiguous: true,
      mapping:
        "The provider committed and lost its answer, the agent reported unknown, looked the effect up by key " +
        "and POST /reconcile committed RECONCILED (applied); the answer lost.",
      afterCrash: STOPPED("RECONCILED"),
    },
    { approach: "agent_reconciles", classes: NOT_PURE },
  ),
  afterCommit(
    "approve",
    {
      id: "server_after_approve",
      title: "after the approval's commit",
      ambiguous: false,
      mapping:
        "A contract that needs a person before the first attempt: the agent is told to wait, a person's POST " +
        "/approve committed, the answer lost. The person does not approve again; the agent's next run " +
        "dispatches the granted attempt.",
      afterCrash: () => PLANNED,
    },
    { approach: "person_approves", contract: { auto: false, approval: "required" } },
  ),
  {
    id: "server_sweep_takeover",
    title: "during the sweep's take-over of an expired lease",
    killAt: "sweep_takeover",
    together: false,
    approach: "agent_dies_after_dispatch",
    classes: EFFECT_CLASSES,
    contract: { auto: false },
    ambiguous: true,
    mapping:
      "The agent died right after dispatch; when its lease ran out, the server's sweep moved the operation to " +
      "UNKNOWN (fence + 1) and died inside that transaction: nothing of it was committed, the restarted " +
      "server's sweep takes the lease over again.",
    afterCrash: IN_FLIGHT,
  },
  {
    id: "server_auto_reconcile_lookup",
    title: "during auto-reconcile's lookup",
    killAt: "auto_reconcile_lookup",
    together: false,
    approach: "agent_dies_after_commit",
    classes: AUTO_CLASSES,
    contract: { auto: true },
    ambiguous: true,
    mapping:
      "The agent died after the provider committed; the sweep made the operation UNKNOWN and auto-reconcile " +
      "asked the provider by key, got `applied`, and the server died before writing the reconciliation. The " +
      "restarted server (or the agent) looks again.",
    afterCrash: () => [
      { phase: "UNKNOWN", decision: "RECONCILE" },
      { phase: "RECONCILED", decision: "STOP" },
    ],
  },
  {
    id: "lease_takeover_race",
    title: "during lease take-over (a new claim races the old worker's dispatch)",
    killAt: null,
    together: false,
    approach: "stall_then_race",
    classes: EFFECT_CLASSES,
    contract: { auto: false },
    ambiguous: false,
    mapping:
      "Two workers, one expired lease: the first claimed and stalled (SIGSTOP) before dispatch until its lease " +
      "ran out; then a second worker, stopped just before its claim, and the first are let go at the same " +
      "moment: the new claim races the old fence's dispatch. Nothing is killed.",
    afterCrash: () => PLANNED,
  },
];

export const SERVER_TABLE: TableSpec = {
  name: "server",
  title: "Server-side crash windows",
  rows: SERVER_WINDOWS,
  notApplicable(row, effect) {
    const window = SERVER_WINDOWS.find((w) => w.id === row.id);
    if (!window || window.classes.includes(effect)) return null;
    if (window.approach === "agent_reconciles") {
      return "n/a: an unknown PURE outcome is retried by the gate, never reconciled";
    }
    return "n/a: auto-reconcile settles only IDEMPOTENT and REPLAYABLE operations";
  },
};
