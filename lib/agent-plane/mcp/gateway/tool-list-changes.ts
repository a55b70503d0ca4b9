// Tells open gateway streams that the tool list changed: an upstream's tools changed, or a contract was saved on any
// instance (noticed by polling the contract heads, since another instance's save leaves no trace in this process).
import { createHash } from "node:crypto";
import { contractHeads } from "@/lib/ledger/contracts/contract-versions";
import type { Ledger } from "@/lib/ledger/ledger";
import type { Upstreams } from "@/lib/services/upstreams/registry";

const POLL_MS = 2000;

type Listener = () => void;

export class ToolListChanges {
  readonly #listeners = new Set<Listener>();
  #timer: NodeJS.Timeout | null = null;
  #stopUpstreams: (() => void) | null = null;
  #contracts: string | null = null;

  constructor(
    private readonly ledger: Ledger,
    private readonly upstreams: Pick<Upstreams, "onToolsChanged">,
  ) {}

  /** Calls `listener` on every change until the returned function is called. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1) this.#start();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }

  #start(): void {
    this.#stopUpstreams = this.upstreams.onToolsChanged(() => this.#notify());
    // The first read is the baseline: a save after it is a change, one before it is what the subscriber listed.
    void this.#poll();
    this.#timer = setInterval(() => void this.#poll(), POLL_MS);
    this.#timer.unref();
  }

  #stop(): void {
    this.#stopUpstreams?.();
    this.#stopUpstreams = null;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#contracts = null;
  }

  async #poll(): Promise<void> {
    try {
      const heads = await contractHeads(this.ledger);
      const fingerprint = createHash("sha256").update(JSON.stringify(heads)).digest("hex");
      const changed = this.#contracts !== null && this.#contracts !== fingerprint;
      this.#contracts = fingerprint;
      if (changed) this.#notify();
    } catch (error) {
      console.error("opledger mcp: could not read the contracts for tool list changes:", error);
    }
  }
}
