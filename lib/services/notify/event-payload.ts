// What a webhook receives: the Standard Webhooks body { type, timestamp, data }, data holding the subject as the API
// shows it and its console url; or, for a Slack incoming webhook, { text } with a link.
import type { Ledger } from "@/lib/ledger/ledger";
import { getDependency } from "@/lib/ledger/dependencies/dependencies";
import { loadContext } from "@/lib/ledger/reads/operation-context";
import { operationView } from "@/lib/ledger/reads/operation-view";
import type { RetrySpike } from "@/lib/ledger/reads/retry-spikes";
import { consoleUrl } from "./console-url";
import type { DeliveredEventType, WebhookFormat } from "./event-types";

export interface WebhookEvent {
  type: DeliveredEventType;
  timestamp: string;
  data: Record<string, unknown> & { url: string };
}

export async function operationData(ledger: Ledger, id: string, now: Date): Promise<WebhookEvent["data"]> {
  const { op, contract, dependency } = await loadContext(ledger.store, id);
  return { ...operationView(op, contract, dependency, now), url: consoleUrl(`/operations/${encodeURIComponent(id)}`) };
}

export async function dependencyData(ledger: Ledger, name: string, now: Date): Promise<WebhookEvent["data"]> {
  const view = await getDependency(ledger, name, now);
  return { ...view, url: consoleUrl(`/dependencies#dependency-${encodeURIComponent(name)}`) };
}

/** The bulk job as its audit record describes it (the bulk action writes its counts into it). */
export function bulkData(jobId: string, auditData: string | null): WebhookEvent["data"] {
  const details = auditData ? (JSON.parse(auditData) as Record<string, unknown>) : {};
  return {
    ...details,
    id: jobId,
    url: consoleUrl(`/audit?subjectType=bulk&subjectId=${encodeURIComponent(jobId)}`),
  };
}

/** The run whose allowance a retry would have passed: the gate's sentence and the operation it stopped. */
export function runData(runId: string, reason: string | null, auditData: string | null): WebhookEvent["data"] {
  const details = auditData ? (JSON.parse(auditData) as Record<string, unknown>) : {};
  return { ...details, runId, reason, url: consoleUrl(`/runs/${encodeURIComponent(runId)}`) };
}

/** The tool and the two definitions' hashes, as its audit record has them; the Upstreams page shows the difference. */
export function toolChangedData(tool: string, auditData: string | null): WebhookEvent["data"] {
  const details = auditData ? (JSON.parse(auditData) as Record<string, unknown>) : {};
  return { ...details, tool, url: consoleUrl("/upstreams") };
}

export function spikeData(spike: RetrySpike): WebhookEvent["data"] {
  return {
    tool: spike.tool,
    retries: spike.retries,
    hourAverage: spike.hourAverage,
    windowStart: spike.windowStart.toISOString(),
    windowEnd: spike.windowEnd.toISOString(),
    url: consoleUrl(`/metrics`),
  };
}

function str(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : "?";
}

/** One line a person reads in a channel, then the link. */
export function slackText(event: WebhookEvent): string {
  const d = event.data;
  const line = ((): string => {
    switch (event.type) {
      case "operation.unknown":
        return `:warning: ${str(d.tool)} operation ${str(d.id)} is UNKNOWN: its outcome must be reconciled.`;
      case "approval.requested":
        return `:raised_hand: ${str(d.tool)} operation ${str(d.id)} waits for a person's approval.`;
      case "approval.expired":
        return `:hourglass: The approval request for ${str(d.tool)} operation ${str(d.id)} expired without a decision.`;
      case "unknowns.aged":
        return `:rotating_light: ${str(d.tool)} operation ${str(d.id)} has been UNKNOWN since ${str(d.updatedAt)}.`;
      case "breaker.opened":
        return `:no_entry: The breaker of ${str(d.name)} opened: calls to it are held.`;
      case "breaker.closed":
        return `:white_check_mark: The breaker of ${str(d.name)} closed: calls flow again.`;
      case "bulk.finished":
        return `:package: Bulk job ${str(d.id)} finished.`;
      case "run.allowance_exhausted":
        return `:stopwatch: Run ${str(d.runId)} spent its allowance: ${str(d.reason)}`;
      case "retries.spike":
        return (
          `:chart_with_upwards_trend: ${str(d.tool)} retried ${str(d.retries)} times in five minutes ` +
          `(about ${Number(d.hourAverage).toFixed(1)} per five minutes the hour before).`
        );
      case "tool.changed":
        return (
          `:warning: The upstream changed ${str(d.tool)} since it was classified: it is not called until an admin ` +
          "confirms the new definition."
        );
      case "webhook.test":
        return `:wave: A test event from opledger for webhook ${str(d.webhook)}.`;
      default: {
        const never: never = event.type;
        return never;
      }
    }
  })();
  return `${line} <${d.url}|Open in opledger>`;
}

/** The request body for a webhook's format. */
export function renderBody(format: WebhookFormat, event: WebhookEvent): string {
  return format === "slack" ? JSON.stringify({ text: slackText(event) }) : JSON.stringify(event);
}
