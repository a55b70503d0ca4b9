// The operation page's identity card: what the operation is, who runs it, its budget, lease and times.
import Link from "next/link";
import type { OperationDetail as Operation } from "@/lib/ledger/reads/operations";
import { RelativeTime } from "@/components/ui/relative-time";
import { Fact, None } from "./fact";
import { AttemptCount, EffectClassText } from "./operation-cells";

export function Identity({ op }: { op: Operation }) {
  const mono = "font-mono text-[12.5px] break-all";
  return (
    <section aria-labelledby="identity-title">
      <h2 id="identity-title" className="mb-2 text-[15px] font-semibold text-ink">
        Identity
      </h2>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1.5 rounded-lg border border-line px-4 py-3 text-[13px]">
        <Fact label="Operation">
          <span className={mono}>{op.id}</span>
        </Fact>
        <Fact label="Tool">
          <span className={mono}>{op.tool}</span> ·{" "}
          <Link
            href={`/contracts/${encodeURIComponent(op.tool)}`}
            className="underline underline-offset-4 hover:text-ink-muted"
          >
            contract v{op.contractVersion}
          </Link>
        </Fact>
        <Fact label="Effect class">
          <EffectClassText effect={op.effect} />
        </Fact>
        <Fact label="Called">{op.via === "mcp" ? "through the MCP gateway" : "over the agent API"}</Fact>
        <Fact label="Idempotency key">
          <span className={mono}>{op.idempotencyKey}</span>
        </Fact>
        <Fact label="Run">
          {op.runId ? (
            <Link
              href={`/runs/${encodeURIComponent(op.runId)}`}
              className={`${mono} underline-offset-4 hover:underline`}
              title="The run's operations on a time axis"
            >
              {op.runId}
            </Link>
          ) : (
            <None />
          )}
        </Fact>
        <Fact label="Agent">{op.agentId ? <span className={mono}>{op.agentId}</span> : <None />}</Fact>
        <Fact label="Attempts">
          <AttemptCount attempt={op.attempt} maxAttempts={op.maxAttempts} />{" "}
          <span className="text-ink-subtle">dispatched of the budget</span>
        </Fact>
        <Fact label="Lease">
          {op.leaseOwner ? (
            <>
              <span className={mono}>{op.leaseOwner}</span> · fence <span className="font-mono">{op.fence}</span>
              {op.leaseExpiresAt ? (
                <>
                  {" "}
                  · expires <RelativeTime live value={op.leaseExpiresAt} />
                </>
              ) : null}
            </>
          ) : (
            <>
              none · fence <span className="font-mono">{op.fence}</span>
            </>
          )}
        </Fact>
        <Fact label="Provider id">{op.providerId ? <span className={mono}>{op.providerId}</span> : <None />}</Fact>
        <Fact label="Created">
          <RelativeTime live value={op.createdAt} />
        </Fact>
        <Fact label="Last change">
          <RelativeTime live value={op.updatedAt} />
        </Fact>
      </dl>
    </section>
  );
}
