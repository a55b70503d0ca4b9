// One contract version's rules as a dense definition list, each value with its meaning on hover.
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import {
  CONTRACT_FIELDS,
  contractFieldValue,
  formatContractValue,
  type ContractFieldPath,
} from "@/lib/ledger/contracts/contract-diff";
import {
  approvalLabel,
  effectHelp,
  humanDuration,
  keyPolicyHelp,
  modeHelp,
  reconcileHelp,
  toolErrorHelp,
} from "./contract-words";
import { EffectBadge } from "./effect-badge";
import { ObserveBadge } from "./mode-badge";

const DURATION_FIELDS = new Set<ContractFieldPath>([
  "backoff.baseMs",
  "backoff.maxMs",
  "keyRetentionMs",
  "reconcile.timeoutMs",
  "approvalTtlMs",
  "unknownAlertMs",
  "timeoutMs",
]);
const MONO_FIELDS = new Set<ContractFieldPath>([
  "reconcile.urlTemplate",
  "reconcile.authHeaderEnv",
  "reconcile.providerIdField",
  "reconcile.statusField",
  "reconcile.appliedValues",
  "dependency",
  "keyFrom",
]);

function helpFor(c: ContractView, path: ContractFieldPath): string | undefined {
  if (path === "effect") return effectHelp(c.effect);
  if (path === "idempotencyKey") return keyPolicyHelp(c.idempotencyKey);
  if (path === "reconcile.method") return reconcileHelp(c.reconcile?.method ?? "none");
  if (path === "approvalTtlMs") return "A request for a person older than this expires, never approved.";
  if (path === "unknownAlertMs") return "An operation Unknown for longer than this is announced as unknowns.aged.";
  if (path === "approvals") return "Distinct people who must approve before an attempt is granted.";
  if (path === "timeoutMs") return "How long the MCP gateway waits for the upstream; no answer in time is UNKNOWN.";
  if (path === "keyFrom") {
    return c.keyFrom === "args"
      ? "The gateway keys a call by its arguments, within one run."
      : "The gateway keys a call by this template over its arguments, across runs.";
  }
  if (path === "toolError") return toolErrorHelp(c.toolError);
  if (path === "mode") return modeHelp(c.mode);
  if (path === "errorRules") return "Read in order before the global error table; the first that matches decides.";
  return undefined;
}

export function ContractValue({ contract, path }: { contract: ContractView; path: ContractFieldPath }) {
  const value = contractFieldValue(contract, path);
  if (path === "errorRules" && typeof value === "object" && value !== null && value.length > 0) {
    return (
      <ol className="font-mono text-[12.5px] break-words">
        {value.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ol>
    );
  }
  if (path === "effect") return <EffectBadge effect={contract.effect} />;
  if (path === "approval") return <span>{approvalLabel(contract.approval)}</span>;
  if (path === "mode" && contract.mode === "observe") return <ObserveBadge />;
  const shown = formatContractValue(value);
  if (path === "approvalTtlMs" && value === null) {
    return (
      <span>
        24 h <span className="text-xs text-ink-subtle">(the default)</span>
      </span>
    );
  }
  if (path === "unknownAlertMs" && value === null) {
    return (
      <span>
        15 min <span className="text-xs text-ink-subtle">(the default)</span>
      </span>
    );
  }
  if (shown === "—") return <span className="text-ink-subtle">not set</span>;
  return (
    <span className={MONO_FIELDS.has(path) ? "font-mono text-[12.5px] break-all" : ""}>
      {shown}
      {DURATION_FIELDS.has(path) && typeof value === "number" && value >= 1000 ? (
        <span className="ml-1.5 text-xs text-ink-subtle">({humanDuration(value)})</span>
      ) : null}
    </span>
  );
}

export function ContractDetails({ contract }: { contract: ContractView }) {
  // Lookup settings only mean something for a lookup; a manual or absent method shows just the method.
  // The description is shown as prose above the list.
  const fields = CONTRACT_FIELDS.filter(
    (f) =>
      f.path !== "description" &&
      (!f.path.startsWith("reconcile.") || f.path === "reconcile.method" || contract.reconcile?.method === "lookup"),
  );
  return (
    <dl className="grid grid-cols-1 gap-x-8 gap-y-2 sm:grid-cols-2 xl:grid-cols-3">
      {fields.map((field) => {
        const help = helpFor(contract, field.path);
        return (
          <div key={field.path} className="min-w-0 border-b border-line pb-2">
            <dt className="text-xs text-ink-muted">{field.label}</dt>
            <dd className="mt-0.5 text-ink">
              <ContractValue contract={contract} path={field.path} />
              {help ? <p className="mt-0.5 text-xs leading-snug text-ink-subtle">{help}</p> : null}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
