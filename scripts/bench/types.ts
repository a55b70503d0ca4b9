// What a benchmark module exports for `npm run bench` (scripts/bench/run.ts): a name, a title and a run() that returns
// figures.

/** How a module is asked to run: repeated rounds of a fixed length, so noisy machines are judged by min/median/max. */
export interface BenchOptions {
  rounds: number;
  roundSeconds: number;
  /** Free TCP ports reserved for this module (it may start servers on them). */
  ports: number[];
  /** A scratch directory of its own, removed after the run. */
  workDir: string;
  /** Use the existing .next-bench build even if sources changed since (for iterating on the benchmark itself). */
  reuseBuild: boolean;
  log: (line: string) => void;
}

/** One figure measured once per round (requests per second, a ratio, a latency percentile, MiB). */
export interface Figure {
  label: string;
  unit: string;
  rounds: number[];
}

/** A target from the issue, checked against the median of a figure (or the maximum, for a ceiling such as memory). */
export interface TargetCheck {
  label: string;
  figure: string;
  statistic: "median" | "max";
  comparison: ">=" | "<=" | "<";
  limit: number;
  /**
   * Another figure whose median is printed and recorded beside the outcome: the 1-minute load average beside an
   * absolute time, which means nothing without the machine's load.
   */
  beside?: string;
}

export interface BenchResult {
  figures: Figure[];
  targets: TargetCheck[];
  /** Anything a reader needs to reproduce or interpret the figures (settings, row counts, which route was trivial). */
  notes: Record<string, unknown>;
}

export interface BenchModule {
  name: string;
  title: string;
  run(options: BenchOptions): Promise<BenchResult>;
}

/** A PostgreSQL job queue the ledger is measured beside: one job is enqueued, fetched by a worker and completed. */
export interface QueuePeer {
  /** Enqueues agent's n-th job and resolves once a worker has fetched and completed it. */
  job(agent: number, n: number): Promise<void>;
  /** Resolves once every completion so far is committed (for a queue that completes after answering the worker). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}
