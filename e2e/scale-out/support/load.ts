// A load of agents (plan, claim, dispatch, confirm) against one server, recording every write the server acknowledged
// with a 2xx.
import type { APIRequestContext } from "@playwright/test";
import { api, type ApiResult, type Operation } from "../../fixtures/api";

/** The furthest state the server acknowledged for one operation, and what it takes to continue it. */
export interface Acknowledged {
  id: string;
  idempotencyKey: string;
  args: unknown;
  workerId: string;
  step: "plan" | "claim" | "dispatch" | "outcome";
  phase: string;
  attempt: number;
  fence: number;
  providerId: string | null;
}

/**
 * Phases in the order one operation of this load moves through them; UNKNOWN (a swept lease) counts as past DISPATCHED.
 */
export const PROGRESS: Record<string, number> = { PLANNED: 0, AUTHORIZED: 0, DISPATCHED: 1, UNKNOWN: 2, CONFIRMED: 2 };

export class Ledger {
  readonly acknowledged = new Map<string, Acknowledged>();
  /** Answers other than 2xx (method, path, status, body): the load never expects one. */
  readonly refusals: string[] = [];
  /** Writes sent whose answer never came (the connection died with the server). */
  unanswered = 0;
  acks = 0;

  ack(op: Operation, entry: Omit<Acknowledged, "id" | "phase" | "attempt" | "providerId" | "idempotencyKey">): void {
    this.acks++;
    this.acknowledged.set(op.id, {
      ...entry,
      id: op.id,
      idempotencyKey: op.idempotencyKey,
      phase: op.phase,
      attempt: op.attempt,
      providerId: op.providerId,
    });
  }
}

class NoAnswer extends Error {}

/**
 * One agent: runs operations of `tool` to CONFIRMED, one after the other, until `stop()` says so or the server stops
 * answering. Each acknowledged write is recorded in `ledger`.
 */
export async function runAgent(
  request: APIRequestContext,
  ledger: Ledger,
  options: { tool: string; agent: string; round: string; stop: () => boolean },
): Promise<void> {
  const client = api(request);
  const call = async <T>(what: string, send: () => Promise<ApiResult<T>>): Promise<T> => {
    let result: ApiResult<T>;
    try {
      result = await send();
    } catch {
      ledger.unanswered++;
      throw new NoAnswer(what);
    }
    if (result.status < 200 || result.status > 299) {
      ledger.refusals.push(`${what}: ${result.status} ${result.text.slice(0, 300)}`);
      throw new NoAnswer(what);
    }
    return result.body as T;
  };
  const workerId = `${options.round}-${options.agent}`;
  try {
    for (let n = 0; !options.stop(); n++) {
      const args = { agent: options.agent, n };
      const idempotencyKey = `${options.round}-${options.agent}-${n}`;
      const base = { args, workerId };
      const planned = await call<Operation>("plan", () => client.plan({ tool: options.tool, args, idempotencyKey }));
      ledger.ack(planned, { ...base, step: "plan", fence: 0 });
      const lease = await call<{ fence: number; operation: Operation }>("claim", () =>
        client.claim(planned.id, { workerId, leaseMs: 60_000 }),
      );
      ledger.ack(lease.operation, { ...base, step: "claim", fence: lease.fence });
      const dispatched = await call<Operation>("dispatch", () => client.dispatch(planned.id, { fence: lease.fence }));
      ledger.ack(dispatched, { ...base, step: "dispatch", fence: lease.fence });
      const providerId = `prov-${idempotencyKey}`;
      const confirmed = await call<Operation>("outcome", () =>
        client.outcome(planned.id, { fence: lease.fence, result: "confirmed", providerId }),
      );
      ledger.ack(confirmed, { ...base, step: "outcome", fence: lease.fence });
    }
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error;
  }
}
