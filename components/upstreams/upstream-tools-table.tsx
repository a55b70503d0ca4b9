// One upstream's tools, one row each: the gateway name, the upstream's description and hints (untrusted), and whether
// a contract exists; admins get a Classify link for a tool without one.
import Link from "next/link";
import { TableHeader, type TableHeaderProps } from "@/components/ui/table-header";
import type { UpstreamToolRow } from "@/lib/console/upstreams-view";
import { ConfirmDefinitionButton } from "./confirm-definition-button";
import { ConfirmedNotice } from "./upstream-notices";
import { ToolHints } from "./tool-hints";

const TD = "px-2.5 py-1.5 align-top";
const COLUMNS: TableHeaderProps["columns"] = [
  { label: "Tool", hint: "The name the gateway lists: <upstream>__<tool>" },
  "Description",
  {
    label: "Hints: untrusted (the upstream's own hints)",
    hint: "What the upstream says about its tool. MCP clients must not trust these; the contract decides.",
    wrap: true,
  },
  "Contract",
];

/**
 * A contracted tool whose upstream now describes it otherwise than when it was classified: not listed, calls refused;
 * the pinned definition beside the new one, and (admins) the confirmation that lets the gateway call it again.
 */
function ChangedDefinition({
  tool,
  changed,
  canConfirm,
}: {
  tool: string;
  changed: NonNullable<UpstreamToolRow["changed"]>;
  canConfirm: boolean;
}) {
  const pre = "max-h-64 overflow-auto rounded border border-line bg-surface-muted p-2 font-mono text-[11.5px]";
  return (
    <div data-tool-changed={tool} className="whitespace-normal">
      <span className="font-medium text-decision-unavailable-ink">
        Changed since classified: not listed, calls refused
      </span>
      <details className="mt-1">
        <summary className="cursor-pointer text-xs text-ink-muted">What changed</summary>
        <div className="mt-1 grid gap-2 md:grid-cols-2">
          <figure>
            <figcaption className="text-xs text-ink-subtle">Pinned (what was classified)</figcaption>
            <pre className={pre}>{changed.pinned}</pre>
          </figure>
          <figure>
            <figcaption className="text-xs text-ink-subtle">Now (what the upstream says)</figcaption>
            <pre className={pre}>{changed.now}</pre>
          </figure>
        </div>
      </details>
      {canConfirm ? <ConfirmDefinitionButton tool={tool} changed={changed} /> : null}
    </div>
  );
}

export function UpstreamToolsTable({
  upstream,
  tools,
  canClassify,
}: {
  upstream: string;
  tools: UpstreamToolRow[];
  canClassify: boolean;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-line">
      <table className="w-full border-collapse text-[13px]">
        <caption className="sr-only">Tools of the upstream {upstream}</caption>
        <TableHeader columns={COLUMNS} inset="px-2.5" />
        <tbody>
          {tools.map((t) => (
            <tr key={t.gatewayName} className="border-b border-line last:border-b-0 hover:bg-surface-muted">
              <th scope="row" className={`${TD} text-left font-normal whitespace-nowrap`}>
                <span className="block font-mono text-[12.5px] font-medium text-ink">{t.gatewayName}</span>
                {t.title ? <span className="block text-xs text-ink-subtle">{t.title}</span> : null}
              </th>
              <td className={`${TD} max-w-md text-ink-muted`}>
                {t.description ?? <span className="text-ink-subtle">none given</span>}
              </td>
              <td className={TD}>
                <ToolHints hints={t.hints} />
              </td>
              <td className={`${TD} whitespace-nowrap`}>
                {t.changed ? (
                  <ChangedDefinition tool={t.gatewayName} changed={t.changed} canConfirm={canClassify} />
                ) : t.hasContract ? (
                  <Link
                    href={`/contracts/${encodeURIComponent(t.gatewayName)}`}
                    className="underline-offset-4 hover:underline"
                  >
                    has a contract
                  </Link>
                ) : (
                  <span className="flex items-baseline gap-2">
                    <span className="text-ink-muted">none: not listed, calls refused</span>
                    {canClassify ? (
                      <Link
                        href={`/contracts/new?classify=${encodeURIComponent(t.gatewayName)}`}
                        className="font-medium text-ink underline underline-offset-4"
                      >
                        Classify
                      </Link>
                    ) : null}
                  </span>
                )}
                {t.changed || t.hasContract ? <ConfirmedNotice tool={t.gatewayName} /> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
