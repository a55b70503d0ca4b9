// Renders a crash table's results as markdown: window x effect class -> final phase, effects and calls at the provider,
// with a legend and the details.
import type { CaseResult } from "./crash-case";
import { CRASH_POINTS, EFFECT_CLASSES, notApplicable, type CrashRow, type EffectClass } from "./matrix";

export type Cell = { result: CaseResult } | { failed: string };

/** One crash table: its windows, and which cells cannot exist (with why). */
export interface TableSpec {
  /** `worker` (e2e/crash/crash-windows.spec.ts) or `server` (server-windows.spec.ts): names its results and section. */
  name: "worker" | "server";
  title: string;
  rows: CrashRow[];
  notApplicable(row: CrashRow, effect: EffectClass): string | null;
}

/** The table of e2e/crash/crash-windows.spec.ts: a worker dies at each boundary. */
export const WORKER_TABLE: TableSpec = {
  name: "worker",
  title: "Crash windows (the worker dies)",
  rows: CRASH_POINTS,
  notApplicable,
};

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function summary(cell: Cell | undefined, spec: TableSpec, row: CrashRow, effect: EffectClass): string {
  const na = spec.notApplicable(row, effect);
  if (na) return na;
  if (!cell) return "not run";
  if ("failed" in cell) return `**FAILED**: ${cell.failed.split("\n")[0]?.slice(0, 160) ?? ""}`;
  const r = cell.result;
  const phase = r.final.phase === "RECONCILED" ? `RECONCILED (${r.final.evidence})` : r.final.phase;
  const effects =
    r.effect === "PURE"
      ? `0 effects, ${plural(r.calls, "read")}`
      : `${plural(r.effects, "effect")}, ${plural(r.calls, "call")}`;
  const approvals = r.approvals > 0 ? ` · ${plural(r.approvals, "approval")}` : "";
  return `${phase} · ${effects}${approvals}`;
}

const cellKey = (row: CrashRow, effect: EffectClass) => `${row.id}/${effect}`;

/** The summary table: only what every run must reproduce (no ids, no timings), so it can be compared with the docs. */
export function summaryRows(cells: Map<string, Cell>, spec: TableSpec): string[] {
  return [
    `| window | ${EFFECT_CLASSES.join(" | ")} |`,
    `|---|${EFFECT_CLASSES.map(() => "---").join("|")}|`,
    ...spec.rows.map(
      (row) =>
        `| ${row.title} | ${EFFECT_CLASSES.map((effect) => summary(cells.get(cellKey(row, effect)), spec, row, effect)).join(" | ")} |`,
    ),
  ];
}

function details(r: CaseResult): string {
  return [
    r.row.id,
    r.effect,
    `\`${r.operationId}\``,
    r.killedBy,
    `${r.afterCrash.phase} / ${r.afterCrash.decision}`,
    `${r.deadFence} → ${r.finalFence}`,
    r.staleAnswers.join(", "),
    String(r.lookupsByKey),
    String(r.workers),
    String(r.final.attempt),
    String(r.auditEvents),
    r.stalledRun ?? "",
    String(r.seconds),
  ].join(" | ");
}

export const CELL_LEGEND =
  "Each cell: the operation's final phase · effects applied at the provider, and every call it received (for " +
  "PURE: reads, which change nothing) · approvals a person gave.";

/** The whole report of one run, for test-results/: the summary, the legend and the details of every case. */
export function crashTable(cells: Map<string, Cell>, spec: TableSpec, engine: string, seconds: number): string {
  const lines = [
    `### ${spec.title} on ${engine} (${new Date().toISOString()}, ${seconds} s)`,
    "",
    ...summaryRows(cells, spec),
    "",
    CELL_LEGEND,
    "",
    "Windows:",
    "",
    ...spec.rows.map((row) => `- **${row.title}** (\`${row.id}\`): ${row.mapping}`),
    "",
    "| window | class | operation | killed | after the lease ran out (phase / gate) | fence dead → final | dead " +
      "fence on dispatch, outcome, heartbeat | lookups by key | workers | attempts | audit events | stalled run | " +
      "s |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...spec.rows.flatMap((row) =>
      EFFECT_CLASSES.flatMap((effect) => {
        const cell = cells.get(cellKey(row, effect));
        return cell && "result" in cell ? [`| ${details(cell.result)} |`] : [];
      }),
    ),
    "",
  ];
  return lines.join("\n");
}
