// The facts that explain the gate's decision on the operation page, under the decision itself.
import type { ReactNode } from "react";
import type { OperationDetail as Operation } from "@/lib/ledger/reads/operations";
import { quorumText } from "@/lib/console/wait-time";
import { formatExactUtc, toEpochMs } from "@/components/ui/format-time";
import { RelativeTime } from "@/components/ui/relative-time";
import { ApprovalDeadline, QuorumCount } from "./approval-deadline";
import { Fact } from "./fact";
import { LastError } from "./operation-cells";

/**
 * The facts that explain the decision: a waiting request's deadline and quorum, an expiry, the evidence so far, the
 * last error, a rejection.
 */
export function Outcome({ op }: { op: Operation }) {
  const lines: ReactNode[] = [];
  if (op.phase === "AWAITING_APPROVAL") {
    lines.push(
      <Fact key="deadline" label="Request">
        <span data-approval-deadline>
          <ApprovalDeadline expiresAt={op.approvalExpiresAt} />
          {op.approvalExpiresAt ? (
            <span className="text-ink-subtle">
              {" "}
              · at {formatExactUtc(toEpochMs(op.approvalExpiresAt) ?? 0)}; nobody deciding by then means it is never
              approved
            </span>
          ) : null}
        </span>
      </Fact>,
    );
    if (quorumText(op.approvals)) {
      lines.push(
        <Fact key="quorum" label="Approvals">
          <QuorumCount approvals={op.approvals} />{" "}
          <span className="text-ink-subtle">
            from distinct people; the attempt is granted with the {ordinal(op.approvals.needed)}
          </span>
        </Fact>,
      );
    }
  }
  if (op.phase === "EXPIRED") {
    lines.push(
      <Fact key="expired" label="Expired">
        <span data-expired-note>
          Nobody approved or rejected this request before its deadline
          {op.approvalExpiresAt ? (
            <>
              {" "}
              (<RelativeTime live value={op.approvalExpiresAt} />)
            </>
          ) : null}
          , so opledger ended it: no attempt was granted, nothing more will be sent, and the agent was told its approval
          expired.
        </span>
      </Fact>,
    );
  }
  if (op.rejectionReason)
    lines.push(
      <Fact key="rejected" label="Rejected">
        {op.rejectionReason}
      </Fact>,
    );
  if (op.evidence !== "none") {
    lines.push(
      <Fact key="evidence" label="Reconciled as">
        {op.evidence === "applied" ? "the effect happened" : "the effect did not happen"}
        {op.providerId ? (
          <>
            {" "}
            · provider id <code className="font-mono text-[12px]">{op.providerId}</code>
          </>
        ) : null}
      </Fact>,
    );
  }
  if (op.approvedAttempt !== null && op.approvedAttempt > op.attempt) {
    lines.push(
      <Fact key="approved" label="Approved">
        attempt {op.approvedAttempt} may be dispatched once
      </Fact>,
    );
  }
  if (op.lastError && op.phase !== "CONFIRMED") {
    lines.push(
      <Fact key="error" label="Last error">
        <LastError error={op.lastError} />
      </Fact>,
    );
  }
  if (op.notBefore && Date.parse(op.notBefore) > Date.parse(op.updatedAt)) {
    lines.push(
      <Fact key="notBefore" label="Next attempt">
        not before <RelativeTime live value={op.notBefore} />
      </Fact>,
    );
  }
  if (lines.length === 0) return null;
  return <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-[13px]">{lines}</dl>;
}

/** "second", "third": the approval that completes a quorum of `n`. */
function ordinal(n: number): string {
  const words = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
  return words[n - 1] ?? `${n}th`;
}
