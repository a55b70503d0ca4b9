// A closed-loop HTTP load generator: N agents on keep-alive connections, each sending its next request when the last
// one answered.
import { Pool } from "undici";

export interface HttpCall {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** Headers of this request on top of the load's own (authorization, content type), such as an idempotency key. */
  headers?: Record<string, string>;
  /** The status the call must answer; anything else stops the benchmark (a benchmark of errors measures nothing). */
  expect: number;
}

export interface LoadRound {
  requests: number;
  /** Completed scenarios (lifecycles, or single requests for a one-call scenario). */
  scenarios: number;
  seconds: number;
  latenciesMs: number[];
}

export type Send = (call: HttpCall) => Promise<unknown>;

export class HttpLoad {
  readonly #pool: Pool;
  readonly #headers: Record<string, string>;

  /** `apiKey` null: no authorization header (a peer's ingress that takes none). */
  constructor(origin: string, connections: number, apiKey: string | null) {
    // A server that stops answering (a peer retrying a failing handler forever) fails the round within a minute.
    this.#pool = new Pool(origin, { connections, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000 });
    this.#headers = {
      ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }),
      "content-type": "application/json",
    };
  }

  /** Runs `agents` loops of `scenario` until `seconds` have passed; every request's latency is recorded. */
  async round(
    agents: number,
    seconds: number,
    scenario: (send: Send, agent: number, n: number) => Promise<void>,
  ): Promise<LoadRound> {
    const latenciesMs: number[] = [];
    let scenarios = 0;
    const send: Send = async (call) => {
      const t0 = performance.now();
      const response = await this.#pool.request({
        method: call.method,
        path: call.path,
        headers: call.headers ? { ...this.#headers, ...call.headers } : this.#headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
      });
      const text = await response.body.text();
      latenciesMs.push(performance.now() - t0);
      if (response.statusCode !== call.expect) {
        throw new Error(
          `${call.method} ${call.path} answered ${response.statusCode}, expected ${call.expect}: ${text.slice(0, 300)}`,
        );
      }
      return text.length > 0 ? (JSON.parse(text) as unknown) : null;
    };
    const started = performance.now();
    const deadline = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: agents }, async (_, agent) => {
        for (let n = 0; Date.now() < deadline; n++) {
          await scenario(send, agent, n);
          scenarios++;
        }
      }),
    );
    return { requests: latenciesMs.length, scenarios, seconds: (performance.now() - started) / 1000, latenciesMs };
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
