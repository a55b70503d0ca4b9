// Heartbeats the lease from claim to the end of the run, so backoff sleeps do not let it expire.
import { ApiProblem, type OpledgerClient } from "./client";
import type { LeaseLossCode } from "./run-result";

export class LeaseKeeper {
  /** Set once the ledger said this worker's fence is stale. */
  lost: LeaseLossCode | null = null;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly client: OpledgerClient,
    private readonly operationId: string,
    private readonly fence: number,
    private readonly leaseMs: number,
    private readonly everyMs: number,
  ) {}

  /** Aborted when the lease is lost. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  start(): void {
    this.schedule();
  }

  onLost(listener: () => void): () => void {
    if (this.lost) {
      listener();
      return () => undefined;
    }
    this.controller.signal.addEventListener("abort", listener, { once: true });
    return () => this.controller.signal.removeEventListener("abort", listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(): void {
    if (this.stopped || this.lost) return;
    this.timer = setTimeout(() => {
      this.inFlight = this.beat().finally(() => {
        this.inFlight = undefined;
        this.schedule();
      });
    }, this.everyMs);
  }

  private async beat(): Promise<void> {
    try {
      await this.client.heartbeat(this.operationId, { fence: this.fence, leaseMs: this.leaseMs });
    } catch (error) {
      if (error instanceof ApiProblem && error.code === "stale_fence") {
        this.lost = "stale_fence";
        this.controller.abort(new DOMException("the lease was taken over by another worker", "AbortError"));
      }
      // Any other failure (network, 5xx): the next beat tries again; the lease is long enough to miss one.
    }
  }
}
