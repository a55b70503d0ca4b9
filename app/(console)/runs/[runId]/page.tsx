// Run page: one run's operations on a time axis, each attempt and the backoff it waited, so "is the agent slow because
// it waits?" has an answer for that run.
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RunAllowancePanel } from "@/components/runs/run-allowance";
import { RunTimelineView } from "@/components/runs/run-timeline";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageUser } from "@/lib/platform/auth/session";
import { env } from "@/lib/platform/config/env";
import { ledger } from "@/lib/ledger/ledger";
import { LedgerError } from "@/lib/ledger/errors";
import { runTimeline } from "@/lib/ledger/reads/run-timeline";
import { runAllowanceOf } from "@/lib/ledger/runs/run-allowances";

type Props = { params: Promise<{ runId: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { runId } = await params;
  return { title: `Run ${runId}` };
}

export default async function RunPage({ params }: Props) {
  await requirePageUser("viewer");
  const { runId } = await params;
  let timeline;
  const now = new Date();
  const allowance = await runAllowanceOf(ledger(), runId, now);
  try {
    timeline = await runTimeline(ledger(), runId, now);
  } catch (error) {
    if (error instanceof LedgerError && error.code === "not_found") notFound();
    throw error;
  }
  return (
    <>
      <PageHeader
        title={`Run ${runId}`}
        description={
          "The run's operations in the order they were planned: each attempt from dispatch to outcome, and the " +
          "backoff it waited before it."
        }
      />
      <div className="flex flex-col gap-6">
        {allowance ? <RunAllowancePanel allowance={allowance} /> : null}
        <RunTimelineView initial={timeline} traceUrl={env().OPLEDGER_TRACE_URL ?? null} />
      </div>
    </>
  );
}
