// Renders the crash matrix's results as markdown: crash point x effect class -> final phase and effects at the
// provider, with a legend and the details.
import type { CaseResult } from "./crash-case";
import { CRASH_POINTS, EFFECT_CLASSES, notApplicable, type CrashPoint, type EffectClass } from "./matrix";

export type Cell = { result: CaseResult } | { failed: string };

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function summary(cell: Cell | undefined, point: CrashPoint, effect: EffectClass): string {
  const na = notApplicable(point, effect);
  if (na) return na;
  if (!cell) return "not run";
  if ("failed" in cell) return `**FAILED**: ${cell.failed.split("\n")[0]?.slice(0, 160) ?? ""}`;
  const r = cell.result;
  const phase = r.final.phase === "RECONCILED" ? `RECONCILED (${r.final.evidence})` : r.final.phase;
  const effects = r.effect === "PURE" ? `0 effects (${plural(r.calls, "read")})` : plural(r.effects, "effect");
  const approvals = r.approvals > 0 ? `, ${plural(r.approvals, "approval")}` : "";
  return `${phase} · ${effects}${approvals}`;
}

function details(r: CaseResult): string {
  return [
    r.point.id,
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
    String(r.seconds),
  ].join(" | ");
}

export function crashTable(cells: Map<string, Cell>, engine: string, seconds: number): string {
  const key = (point: CrashPoint, effect: EffectClass) => `${point.id}/${effect}`;
  const lines = [
    `### Crash windows on ${engine} (${new Date().toISOString()}, ${seconds} s)`,
    "",
    `| crash point | ${EFFECT_CLASSES.join(" | ")} |`,
    `|---|${EFFECT_CLASSES.map(() => "---").join("|")}|`,
    ...CRASH_POINTS.map(
      (point) =>
        `| ${point.title} | ${EFFECT_CLASSES.map((effect) => summary(cells.get(key(point, effect)), point, effect)).join(" | ")} |`,
    ),
    "",
    "Each cell: the operation's final phase · effects applied at the provider (for PURE: reads, which change nothing) · approvals a person gave.",
    "",
    "Boundaries:",
    "",
    ...CRASH_POINTS.map((point) => `- **${point.title}** (\`${point.id}\`): ${point.mapping}`),
    "",
    "| crash point | class | operation | killed by | after the lease ran out (phase / gate) | fence dead → final | dead fence on dispatch, outcome, heartbeat | lookups by key | workers | attempts | audit events | s |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...CRASH_POINTS.flatMap((point) =>
      EFFECT_CLASSES.flatMap((effect) => {
        const cell = cells.get(key(point, effect));
        return cell && "result" in cell ? [`| ${details(cell.result)} |`] : [];
      }),
    ),
    "",
  ];
  return lines.join("\n");
}
