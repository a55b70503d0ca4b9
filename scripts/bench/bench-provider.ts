// The tool call's effect in the peer benchmarks: one POST to the provider process (children/provider.ts), made the same
// way by opledger's agents and by the peers' services (ProviderClient), so both sides pay for the same call.
import { Pool } from "undici";
import path from "node:path";
import { startListening } from "./child-process";

export interface BenchProvider {
  url: string;
  pid: number;
  /** How many charges the provider has made so far. */
  calls(): Promise<number>;
  stop(): Promise<void>;
}

export async function startProvider(port: number, log: (line: string) => void): Promise<BenchProvider> {
  const child = await startListening(
    "provider",
    path.join(__dirname, "children", "provider.ts"),
    [String(port)],
    {},
    log,
  );
  const url = child.url;
  return {
    url,
    pid: child.pid,
    async calls() {
      const response = await fetch(`${url}/calls`);
      return ((await response.json()) as { calls: number }).calls;
    },
    stop: () => child.stop(),
  };
}

/** A keep-alive client of the provider; `charge` resolves to the new charge's id. */
export class ProviderClient {
  readonly #pool: Pool;

  constructor(url: string, connections: number) {
    this.#pool = new Pool(url, { connections, pipelining: 1 });
  }

  async charge(args: unknown): Promise<string> {
    const response = await this.#pool.request({
      method: "POST",
      path: "/charges",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(args),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`the provider answered ${response.statusCode}: ${text}`);
    return (JSON.parse(text) as { id: string }).id;
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
