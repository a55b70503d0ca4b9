// DBOS Transact as a peer of the ledger on PostgreSQL: a workflow with one step around the provider call, started with a
// workflow id per job (its idempotency), checkpointed in a system database of its own.
import type { ProviderClient } from "./bench-provider";
import { requirePeer } from "./peers";
import { benchArgs } from "./workload";

/** The little of @dbos-inc/dbos-sdk this peer uses (the package is the peers', not the project's: no static types). */
interface DbosSdk {
  DBOS: {
    setConfig(config: {
      name: string;
      systemDatabaseUrl: string;
      systemDatabasePoolSize: number;
      logLevel: string;
    }): void;
    registerWorkflow<A extends unknown[], R>(
      workflow: (...args: A) => Promise<R>,
      config: { name: string },
    ): (...args: A) => Promise<R>;
    runStep<R>(step: () => Promise<R>, config: { name: string }): Promise<R>;
    startWorkflow<A extends unknown[], R>(
      workflow: (...args: A) => Promise<R>,
      params: { workflowID: string },
    ): (...args: A) => Promise<{ getResult(): Promise<R> }>;
    launch(): Promise<void>;
    shutdown(options: { deregister: boolean }): Promise<void>;
  };
}

export interface DbosPeer {
  /** Starts agent's n-th workflow under its own id and resolves with its result (the step's provider id). */
  job(agent: number, n: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Launches DBOS on `url` (it creates its schema there) with a pool of `poolSize`; DBOS is one per process, so a peer must
 * be stopped before the next is started (the workflow is registered again each time).
 */
export async function startDbos(url: string, poolSize: number, provider: ProviderClient): Promise<DbosPeer> {
  const { DBOS } = requirePeer<DbosSdk>("@dbos-inc/dbos-sdk");
  DBOS.setConfig({
    name: "opledger-bench",
    systemDatabaseUrl: url,
    systemDatabasePoolSize: poolSize,
    logLevel: "warn",
  });
  const charge = DBOS.registerWorkflow(
    (args: ReturnType<typeof benchArgs>) => DBOS.runStep(() => provider.charge(args), { name: "charge" }),
    { name: "charge" },
  );
  await DBOS.launch();
  return {
    async job(agent, n) {
      const handle = await DBOS.startWorkflow(charge, { workflowID: `bench-${agent}-${n}` })(benchArgs(agent, n));
      return handle.getResult();
    },
    stop: () => DBOS.shutdown({ deregister: true }),
  };
}
