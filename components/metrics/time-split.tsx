// Where the wall-clock went over the window: per tool and per dependency, time spent waiting in backoff beside time
// spent in calls, as a table with a split bar (the numbers are the text; the bar repeats them for the eye).
import type { TimeSplit, WallClock } from "@/lib/ledger/reads/wall-clock";
import { backoffShare, spentTime } from "./durations";

interface Row extends TimeSplit {
  key: string;
  label: string;
  mono: boolean;
}

function SplitBar({ row, scale }: { row: TimeSplit; scale: number }) {
  const width = (ms: number) => `${scale === 0 ? 0 : (ms / scale) * 100}%`;
  return (
    <div aria-hidden="true" className="flex h-2.5 w-full min-w-24 overflow-hidden rounded-sm bg-surface-sunken">
      <div style={{ width: width(row.backoffMs), background: "var(--tone-amber-solid)" }} />
      <div style={{ width: width(row.callMs), background: "var(--tone-blue-solid)" }} />
    </div>
  );
}

function SplitTable({ caption, heading, rows }: { caption: string; heading: string; rows: Row[] }) {
  const scale = Math.max(0, ...rows.map((r) => r.backoffMs + r.callMs));
  return (
    <table className="w-full border-collapse text-[13px]">
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr className="border-b border-line text-left text-xs text-ink-muted">
          <th scope="col" className="py-1.5 pr-3 font-medium">
            {heading}
          </th>
          <th scope="col" className="py-1.5 pr-3 text-right font-medium whitespace-nowrap">
            In backoff
          </th>
          <th scope="col" className="py-1.5 pr-3 text-right font-medium whitespace-nowrap">
            In calls
          </th>
          <th scope="col" className="py-1.5 pr-3 text-right font-medium whitespace-nowrap">
            Backoff share
          </th>
          <th scope="col" className="py-1.5 pr-3 text-right font-medium whitespace-nowrap">
            Attempts
          </th>
          <th scope="col" className="w-1/3 py-1.5 font-medium">
            <span className="sr-only">Split</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const share = backoffShare(row.backoffMs, row.callMs);
          return (
            <tr key={row.key} className="border-b border-line last:border-b-0" data-time-row={row.key}>
              <th
                scope="row"
                className={`py-1.5 pr-3 text-left font-normal break-all ${row.mono ? "font-mono text-[12px]" : "text-ink-muted"}`}
              >
                {row.label}
              </th>
              <td className="py-1.5 pr-3 text-right whitespace-nowrap tabular-nums">{spentTime(row.backoffMs)}</td>
              <td className="py-1.5 pr-3 text-right whitespace-nowrap tabular-nums">{spentTime(row.callMs)}</td>
              <td className="py-1.5 pr-3 text-right whitespace-nowrap tabular-nums">
                {share === null ? "–" : `${share}%`}
              </td>
              <td className="py-1.5 pr-3 text-right whitespace-nowrap tabular-nums">
                {row.attempts}
                {row.inFlight > 0 ? <span className="text-ink-subtle"> ({row.inFlight} out)</span> : null}
              </td>
              <td className="py-1.5">
                <SplitBar row={row} scale={scale} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function TimeSplitSection({ time, windowLabel }: { time: WallClock; windowLabel: string }) {
  const share = backoffShare(time.total.backoffMs, time.total.callMs);
  const tools: Row[] = time.byTool.map((t) => ({ ...t, key: `tool:${t.tool}`, label: t.tool, mono: true }));
  const dependencies: Row[] = time.byDependency.map((d) => ({
    ...d,
    key: `dependency:${d.dependency ?? ""}`,
    label: d.dependency ?? "no dependency named",
    mono: d.dependency !== null,
  }));
  return (
    <section
      aria-labelledby="wall-clock-heading"
      className="flex flex-col gap-3 rounded-lg border border-line p-3"
      data-testid="wall-clock"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <div>
          <h2 id="wall-clock-heading" className="font-medium text-ink">
            Where the wall-clock went
          </h2>
          <p className="text-xs leading-snug text-ink-subtle">
            Time attempts waited in backoff before they went (amber), beside time spent in the calls themselves (blue),
            for the attempts dispatched {windowLabel}. A large backoff share means agents are slow because they wait,
            not because the tools are.
          </p>
        </div>
        <span className="font-mono text-[11px] text-ink-subtle">
          opledger_backoff_seconds_total · opledger_attempt_seconds
        </span>
      </div>
      {time.total.attempts === 0 ? (
        <p className="text-[13px] text-ink-muted">No attempts were dispatched {windowLabel}.</p>
      ) : (
        <>
          <p className="text-[13px] text-ink" data-testid="wall-clock-total">
            <span className="font-semibold tabular-nums">{spentTime(time.total.backoffMs)}</span> in backoff and{" "}
            <span className="font-semibold tabular-nums">{spentTime(time.total.callMs)}</span> in calls over{" "}
            {time.total.attempts} {time.total.attempts === 1 ? "attempt" : "attempts"}
            {share === null ? "" : ` (${share}% waiting)`}.
          </p>
          <div className="flex flex-col gap-4">
            <SplitTable caption={`Time in backoff and in calls per tool, ${windowLabel}`} heading="Tool" rows={tools} />
            <SplitTable
              caption={`Time in backoff and in calls per dependency, ${windowLabel}`}
              heading="Dependency"
              rows={dependencies}
            />
          </div>
        </>
      )}
    </section>
  );
}
