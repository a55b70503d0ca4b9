// Contract page: a tool's current rules, every version with its author, and the diff between any two versions.
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { linkClass, Notice } from "@/components/ui/form-controls";
import { buttonClass } from "@/components/ui/button-styles";
import { ContractDetails } from "@/components/contracts/contract-details";
import { ContractDiff, DiffPicker, VersionHistory } from "@/components/contracts/contract-history";
import { contractPath, toolFromParam, versionParam } from "@/components/contracts/contract-route";
import { PageHeader } from "@/components/ui/page-header";
import { RelativeTime } from "@/components/ui/relative-time";
import { hasRole } from "@/lib/platform/auth/roles";
import { requirePageUser } from "@/lib/platform/auth/session";
import { ledger } from "@/lib/ledger/ledger";
import { contractRecorders } from "@/lib/ledger/contracts/contract-recorders";
import { listContractVersions } from "@/lib/ledger/contracts/contract-versions";
import { LedgerError } from "@/lib/ledger/errors";

type Props = {
  params: Promise<{ tool: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: toolFromParam((await params).tool) ?? "Contract" };
}

export default async function ContractPage({ params, searchParams }: Props) {
  const user = await requirePageUser("viewer");
  const tool = toolFromParam((await params).tool);
  if (!tool) notFound();
  const query = await searchParams;
  const versions = await listContractVersions(ledger(), tool).catch((error: unknown) => {
    if (error instanceof LedgerError && error.code === "not_found") return null;
    throw error;
  });
  if (!versions) notFound();
  const [current] = versions;
  if (!current) notFound();

  const recorders = await contractRecorders(ledger(), tool);

  const byVersion = new Map(versions.map((v) => [v.version, v]));
  const askedFrom = versionParam(query.from);
  const askedTo = versionParam(query.to);
  const to = askedTo !== undefined && byVersion.has(askedTo) ? askedTo : current.version;
  const defaultFrom = to > 1 ? to - 1 : undefined;
  const from = askedFrom !== undefined && byVersion.has(askedFrom) ? askedFrom : defaultFrom;
  const badRequest =
    (askedFrom !== undefined && !byVersion.has(askedFrom)) || (askedTo !== undefined && !byVersion.has(askedTo));
  const saved = versionParam(query.saved);
  const canEdit = hasRole(user.role, "admin");

  return (
    <>
      <PageHeader
        title={tool}
        description={`Version ${current.version}, saved by ${current.author}. Operations keep the version they were planned under.`}
        actions={
          <>
            <Link
              href={`/audit?subjectType=contract&subjectId=${encodeURIComponent(tool)}`}
              className={buttonClass("secondary")}
            >
              Audit trail
            </Link>
            {canEdit ? (
              <Link href={contractPath(tool, "/edit")} className={buttonClass("primary")}>
                Edit contract
              </Link>
            ) : null}
          </>
        }
      />

      <div className="flex flex-col gap-8">
        {saved !== undefined ? (
          <Notice tone="success" title={`Saved as version ${saved}.`}>
            Operations planned from now on follow it; the diff against the previous version is below.
          </Notice>
        ) : query.unchanged ? (
          <Notice tone="info" title="Nothing changed, so no new version was made.">
            The form matched version {current.version} rule for rule.
          </Notice>
        ) : null}

        <section aria-labelledby="current-heading">
          <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
            <h2 id="current-heading" className="text-[15px] font-semibold text-ink">
              Current rules · v{current.version}
            </h2>
            <p className="text-xs text-ink-subtle">
              Saved <RelativeTime value={current.createdAt} /> by {current.author}
            </p>
          </div>
          {current.description ? <p className="mb-3 max-w-prose text-ink-muted">{current.description}</p> : null}
          <ContractDetails contract={current} />
          {!canEdit ? <p className="mt-3 text-xs text-ink-subtle">Changing a contract needs the admin role.</p> : null}
        </section>

        <section aria-labelledby="diff-heading" id="diff" className="scroll-mt-4">
          <h2 id="diff-heading" className="mb-3 text-[15px] font-semibold text-ink">
            What changed
          </h2>
          {badRequest ? (
            <div className="mb-3">
              <Notice tone="warning">
                The link asked for a version this contract does not have; showing{" "}
                {from !== undefined ? `v${from} to v${to}` : `v${to}`} instead.
              </Notice>
            </div>
          ) : null}
          {from !== undefined ? (
            <div className="flex flex-col gap-3">
              <DiffPicker tool={tool} versions={versions} from={from} to={to} />
              <ContractDiff before={byVersion.get(from) ?? current} after={byVersion.get(to) ?? current} />
            </div>
          ) : (
            <p className="text-ink-muted">
              Only one version so far. Every save makes a new version, and the difference between any two appears here.
              {canEdit ? (
                <>
                  {" "}
                  <Link href={contractPath(tool, "/edit")} className={linkClass}>
                    Edit the contract
                  </Link>
                  .
                </>
              ) : null}
            </p>
          )}
        </section>

        <section aria-labelledby="history-heading">
          <h2 id="history-heading" className="mb-3 text-[15px] font-semibold text-ink">
            Version history
          </h2>
          <VersionHistory tool={tool} versions={versions} recorders={recorders} from={from} to={to} />
        </section>
      </div>
    </>
  );
}
