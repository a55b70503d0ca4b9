// A contract's version history (who saved which version, when, what it changed) and the field-by-field diff between any
// two versions.
import Link from "next/link";
import { MonoId } from "@/components/ui/mono-id";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableHeader } from "@/components/ui/table-header";
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { diffContracts, formatContractValue } from "@/lib/ledger/contracts/contract-diff";
import { contractPath } from "./contract-route";
import { inputClass } from "@/components/ui/form-controls";
import { buttonClass } from "@/components/ui/button-styles";
import type { VersionRecorder } from "@/lib/ledger/contracts/contract-recorders";

const TD = "px-3 py-1.5 align-top";

/**
 * The version's author (the label written with it), and how they saved it when not in the console. A key's label
 * already names the key (and its person), so the "via" line repeats no name; older records name the key by their id.
 */
function Recorder({ version, recorder }: { version: ContractView; recorder: VersionRecorder | undefined }) {
  const via = recorder && recorder.actorType !== "user" ? (recorder.actorLabel ?? recorder.actorId) : null;
  return (
    <span className="flex flex-col">
      <span className="truncate" title={version.author}>
        {version.author}
      </span>
      {recorder && via !== null ? (
        <span className="text-xs text-ink-subtle" title={`id ${recorder.actorId}`}>
          via {recorder.actorType === "api_key" ? "API key" : recorder.actorType}
          {via === version.author ? null : (
            <>
              {" "}
              <MonoId value={via} maxChars={28} />
            </>
          )}
        </span>
      ) : null}
    </span>
  );
}

/** A version made by confirming the MCP tool's new definition: its rules are the previous version's. */
function ConfirmedDefinition({ reason }: { reason: string }) {
  return (
    <span data-confirmed-definition>
      the tool’s definition, confirmed: <q className="text-ink-muted">{reason}</q>
    </span>
  );
}

export function VersionHistory({
  tool,
  versions,
  recorders,
  from,
  to,
}: {
  tool: string;
  /** Newest first. */
  versions: ContractView[];
  recorders: Map<number, VersionRecorder>;
  from: number | undefined;
  to: number | undefined;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-line">
      <table className="w-full border-collapse text-[13px]">
        <caption className="sr-only">Versions of the {tool} contract, newest first</caption>
        <TableHeader columns={["Version", "Saved by", "When", "Changed", { label: "Compare", srOnly: true }]} />
        <tbody>
          {versions.map((v, i) => {
            const previous = versions[i + 1];
            const changes = previous ? diffContracts(previous, v) : [];
            const inDiff = v.version === from || v.version === to;
            const confirmed = recorders.get(v.version)?.confirmedDefinition;
            return (
              <tr
                key={v.version}
                className={`border-b border-line last:border-b-0 ${inDiff ? "bg-surface-muted" : ""}`}
              >
                <th scope="row" className={`${TD} text-left font-medium whitespace-nowrap tabular-nums`}>
                  v{v.version}
                  {i === 0 ? <span className="ml-1.5 text-xs font-normal text-ink-subtle">current</span> : null}
                </th>
                <td className={`${TD} max-w-64`}>
                  <Recorder version={v} recorder={recorders.get(v.version)} />
                </td>
                <td className={`${TD} whitespace-nowrap`}>
                  <RelativeTime value={v.createdAt} />
                </td>
                <td className={TD}>
                  {confirmed ? (
                    <ConfirmedDefinition reason={confirmed.reason} />
                  ) : previous ? (
                    changes.length > 0 ? (
                      changes.map((c) => c.label).join(", ")
                    ) : (
                      <span className="text-ink-subtle">nothing</span>
                    )
                  ) : (
                    <span className="text-ink-subtle">created</span>
                  )}
                </td>
                <td className={`${TD} text-right whitespace-nowrap`}>
                  {previous ? (
                    <Link
                      href={`${contractPath(tool)}?from=${previous.version}&to=${v.version}#diff`}
                      className="text-xs text-ink-muted underline underline-offset-4 hover:text-ink"
                      aria-label={`Compare version ${v.version} with version ${previous.version}`}
                    >
                      diff with v{previous.version}
                    </Link>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function DiffPicker({
  tool,
  versions,
  from,
  to,
}: {
  tool: string;
  versions: ContractView[];
  from: number;
  to: number;
}) {
  return (
    <form method="get" action={contractPath(tool)} className="flex flex-wrap items-end gap-3">
      <VersionSelect name="from" label="From version" versions={versions} value={from} />
      <VersionSelect name="to" label="To version" versions={versions} value={to} />
      <button type="submit" className={buttonClass("secondary")}>
        Compare
      </button>
    </form>
  );
}

function VersionSelect(props: { name: string; label: string; versions: ContractView[]; value: number }) {
  return (
    <label className="flex flex-col gap-1">
      <span className="text-xs text-ink-muted">{props.label}</span>
      <select name={props.name} defaultValue={String(props.value)} className={inputClass(false, "max-w-72 py-1")}>
        {props.versions.map((v) => (
          <option key={v.version} value={v.version}>
            v{v.version} · {v.author}
          </option>
        ))}
      </select>
    </label>
  );
}

export function ContractDiff({ before, after }: { before: ContractView; after: ContractView }) {
  const changes = diffContracts(before, after);
  return (
    <div>
      <p className="mb-2 text-ink-muted">
        From <span className="font-medium text-ink">v{before.version}</span> ({before.author},{" "}
        <RelativeTime value={before.createdAt} />) to <span className="font-medium text-ink">v{after.version}</span> (
        {after.author}, <RelativeTime value={after.createdAt} />
        ):{" "}
        {changes.length === 0
          ? "no rule differs."
          : `${changes.length} ${changes.length === 1 ? "rule differs" : "rules differ"}.`}
      </p>
      {changes.length > 0 ? (
        <div className="overflow-x-auto rounded-lg border border-line">
          <table className="w-full border-collapse text-[13px]" data-testid="contract-diff">
            <caption className="sr-only">
              Rules that differ between version {before.version} and version {after.version}
            </caption>
            <TableHeader columns={["Rule", `In v${before.version}`, `In v${after.version}`]} />
            <tbody>
              {changes.map((c) => (
                <tr key={c.path} className="border-b border-line last:border-b-0">
                  <th scope="row" className={`${TD} text-left font-medium whitespace-nowrap`}>
                    {c.label}
                  </th>
                  <td className={`${TD} font-mono text-[12.5px] break-all text-ink-muted`}>
                    <span className="sr-only">was </span>
                    <span className="line-through decoration-ink-subtle/60">{formatContractValue(c.before)}</span>
                  </td>
                  <td className={`${TD} font-mono text-[12.5px] font-medium break-all`}>
                    <span className="sr-only">now </span>
                    {formatContractValue(c.after)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
