// Where the same counters are exported: Prometheus scrapes /api/v1/metrics with an API key of the metrics scope.

const SERIES: [string, string][] = [
  ["opledger_unknown_outcomes_total", "counter: operations that entered UNKNOWN"],
  ["opledger_reconciliations_total", "counter: reconciliations recorded"],
  ["opledger_duplicate_rejections_total", "counter: plans refused for a reused key"],
  ["opledger_approval_interruptions_total", "counter: times a person was asked"],
  ["opledger_retries_total{effect}", "counter: attempts after the first, by class"],
  ["opledger_unknown_outcomes", "gauge: operations in UNKNOWN now"],
  ["opledger_operations{phase}", "gauge: operations by phase"],
  ["opledger_backoff_seconds_total{tool,dependency}", "counter: seconds waited in backoff"],
  ["opledger_attempt_seconds{tool}", "histogram: how long attempts took"],
];

export function PrometheusNote() {
  return (
    <aside
      aria-labelledby="prometheus-heading"
      className="rounded-lg border border-line bg-surface-muted px-4 py-3 text-[13px]"
    >
      <h2 id="prometheus-heading" className="font-medium text-ink">
        Scraping with Prometheus
      </h2>
      <p className="mt-1 leading-relaxed text-ink-muted">
        Prometheus scrapes <code className="font-mono text-ink">GET /api/v1/metrics</code> (text exposition format),
        with an API key of the <code className="font-mono text-ink">metrics</code> scope (Admin → API keys, or{" "}
        <code className="font-mono text-ink">npm run opledger -- create-api-key --scopes metrics</code>) sent as a
        bearer token; an agent key is refused. It exports the counters charted here:
      </p>
      <ul className="mt-2 grid gap-x-8 gap-y-0.5 text-xs md:grid-cols-2">
        {SERIES.map(([name, meaning]) => (
          <li key={name} className="flex flex-wrap gap-x-2">
            <code className="font-mono text-ink">{name}</code>
            <span className="text-ink-subtle">{meaning}</span>
          </li>
        ))}
      </ul>
      <pre className="mt-3 overflow-x-auto rounded-md bg-surface px-3 py-2 font-mono text-[12px] text-ink ring-1 ring-line ring-inset">
        {`scrape_configs:
  - job_name: opledger
    metrics_path: /api/v1/metrics
    authorization:
      credentials_file: /etc/prometheus/opledger-key   # an opledger API key, metrics scope
    static_configs:
      - targets: ["opledger.internal:3000"]`}
      </pre>
    </aside>
  );
}
