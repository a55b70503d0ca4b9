// Every tool contract at its current version, one dense row each, the tool name linking to its versions; observe-mode
// tools are tagged beside their name.
import Link from "next/link";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableHeader, type TableHeaderProps } from "@/components/ui/table-header";
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { approvalLabel } from "./contract-words";
import { EffectBadge } from "./effect-badge";
import { ObserveBadge } from "./mode-badge";

const TD = "px-2.5 py-1.5 align-middle whitespace-nowrap";
const CONTRACT_COLUMNS: TableHeaderProps["columns"] = [
  "Tool",
  "Class",
  { label: "Key", hint: "Idempotency key policy" },
  "Reconcile",
  "Approval",
  { label: "Attempts", align: "right", hint: "Max attempts, the first included" },
  "Dependency",
  "Author",
  "Updated",
];

export function ContractsTable({ contracts }: { contracts: ContractView[] }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-line">
      <table className="w-full border-collapse text-[13px]">
        <caption className="sr-only">Tool contracts at their current version</caption>
        <TableHeader columns={CONTRACT_COLUMNS} inset="px-2.5" />
        <tbody>
          {contracts.map((c) => (
            <tr key={c.tool} className="border-b border-line last:border-b-0 hover:bg-surface-muted">
              <th scope="row" className={`${TD} text-left font-normal`}>
                <span className="flex items-baseline gap-1.5">
                  <Link
                    href={`/contracts/${encodeURIComponent(c.tool)}`}
                    title={c.tool}
                    className="block max-w-60 truncate font-mono text-[12.5px] font-medium text-ink underline-offset-4 hover:underline"
                  >
                    {c.tool}
                  </Link>
                  <span className="text-xs text-ink-subtle tabular-nums" title={`Version ${c.version}`}>
                    v{c.version}
                  </span>
                  {c.mode === "observe" ? <ObserveBadge /> : null}
                </span>
              </th>
              <td className={TD}>
                <EffectBadge effect={c.effect} />
              </td>
              <td className={TD}>{c.idempotencyKey}</td>
              <td className={TD}>
                {c.reconcile ? (
                  `${c.reconcile.method}${c.reconcile.auto ? " (auto)" : ""}`
                ) : (
                  <span className="text-ink-subtle">none</span>
                )}
              </td>
              <td className={TD}>
                {c.approval === "required" ? (
                  <span className="font-medium">{approvalLabel(c.approval)}</span>
                ) : (
                  <span className="text-ink-muted">{approvalLabel(c.approval)}</span>
                )}
              </td>
              <td className={`${TD} text-right tabular-nums`}>{c.maxAttempts}</td>
              <td className={TD}>
                {c.dependency ? (
                  <Link
                    href={`/dependencies#dependency-${encodeURIComponent(c.dependency)}`}
                    title={c.dependency}
                    className="block max-w-40 truncate font-mono text-[12.5px] underline-offset-4 hover:underline"
                  >
                    {c.dependency}
                  </Link>
                ) : (
                  <span className="text-ink-subtle">—</span>
                )}
              </td>
              <td className={`${TD} max-w-40 truncate`} title={c.author}>
                {c.author}
              </td>
              <td className={TD}>
                <RelativeTime value={c.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
