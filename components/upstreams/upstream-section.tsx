// One upstream on the Upstreams page: its name, what it runs or where it is, its state and last error, then its tools.
import { RelativeTime } from "@/components/ui/relative-time";
import type { UpstreamView } from "@/lib/console/upstreams-view";
import { UpstreamStateBadge } from "./upstream-state-badge";
import { UpstreamToolsTable } from "./upstream-tools-table";

export function UpstreamSection({ upstream, canClassify }: { upstream: UpstreamView; canClassify: boolean }) {
  const headingId = `upstream-${upstream.name}`;
  return (
    <section aria-labelledby={headingId} className="mb-6">
      <div className="mb-2 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h2 id={headingId} className="font-mono text-[15px] font-semibold text-ink">
          {upstream.name}
        </h2>
        <UpstreamStateBadge state={upstream.state} />
        <span className="text-xs text-ink-subtle">{upstream.kind === "command" ? "stdio" : "Streamable HTTP"}</span>
        <code className="max-w-xl truncate text-xs text-ink-muted" title={upstream.target}>
          {upstream.target}
        </code>
        {upstream.toolsFetchedAt ? (
          <span className="text-xs text-ink-subtle">
            tools listed <RelativeTime value={upstream.toolsFetchedAt} />
          </span>
        ) : null}
      </div>
      {upstream.lastError ? (
        <p role="status" className="mb-2 max-w-prose text-[13px] text-decision-unavailable-ink">
          {upstream.lastError}
        </p>
      ) : null}
      {upstream.tools === null ? (
        <p className="text-[13px] text-ink-muted">
          {upstream.state === "failed"
            ? "No tools: the upstream did not start."
            : "Its tools are listed once it has started."}
        </p>
      ) : upstream.tools.length === 0 ? (
        <p className="text-[13px] text-ink-muted">The upstream offers no tools.</p>
      ) : (
        <UpstreamToolsTable upstream={upstream.name} tools={upstream.tools} canClassify={canClassify} />
      )}
    </section>
  );
}
