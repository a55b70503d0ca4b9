// Observe mode on the operation page: the call went out, and this says what enforcing its contract would have done.
import Link from "next/link";
import type { WouldHave } from "@/lib/ledger/reads/operation-view";
import { wouldHaveText } from "@/lib/console/would-have";
import { MonoId } from "@/components/ui/mono-id";
import { operationHref } from "./operation-cells";

function EarlierOperation({ id }: { id: string }) {
  return (
    <Link
      href={operationHref(id)}
      className="rounded-sm underline decoration-line-strong underline-offset-4 hover:decoration-ink"
      data-earlier-operation={id}
    >
      <MonoId value={id} maxChars={26} />
    </Link>
  );
}

export function WouldHavePanel({ tool, wouldHave }: { tool: string; wouldHave: WouldHave }) {
  const text = wouldHaveText(wouldHave);
  return (
    <section
      aria-labelledby="would-have-title"
      className="mb-6 rounded-xl border border-dashed border-line-strong px-5 py-4"
      data-would-have={wouldHave.code}
    >
      <h2 id="would-have-title" className="text-[15px] leading-relaxed text-ink">
        <span className="font-semibold">Observe mode:</span> enforcing would have{" "}
        {text.parts.map((part, i) =>
          "operationId" in part ? <EarlierOperation key={i} id={part.operationId} /> : part.text,
        )}
        .
      </h2>
      <p className="mt-1 max-w-3xl text-[13px] text-ink-muted">
        The contract of <span className="font-mono text-[12.5px]">{tool}</span> only observes: this call went out as the
        agent made it, and nothing was held or refused.
        {text.reason ? <> The gate&apos;s reason: {text.reason}</> : null}
      </p>
      {text.earlierOperation ? (
        <p className="mt-1 text-[13px] text-ink-muted">
          The earlier call: operation <EarlierOperation id={text.earlierOperation} />
        </p>
      ) : null}
    </section>
  );
}
