// The Restate side of the peer benchmark: a service on @restatedev/restate-sdk whose one handler makes the tool call's
// effect inside one `ctx.run` (journaled by the server before the handler goes on), with the same provider client as
// opledger's agents. Args: the port to serve on (HTTP/2, as `serve` does) and the provider's URL. Prints its URL when
// listening.
import { ProviderClient } from "../bench-provider";
import { requirePeer } from "../peers";
import { RESTATE_HANDLER, RESTATE_SERVICE } from "../restate-server";
import { AGENTS } from "../workload";

/** The little of the SDK this service uses (the package is the peers', not the project's: no static types). */
interface RestateSdk {
  service(definition: {
    name: string;
    handlers: Record<string, (ctx: RunContext, input: unknown) => Promise<unknown>>;
  }): unknown;
  serve(options: { services: unknown[]; port: number }): Promise<number>;
}
interface RunContext {
  run<T>(name: string, action: () => Promise<T>): PromiseLike<T>;
}

const [port, providerUrl] = process.argv.slice(2);
const restate = requirePeer<RestateSdk>("@restatedev/restate-sdk");
const provider = new ProviderClient(providerUrl ?? "", AGENTS);

const service = restate.service({
  name: RESTATE_SERVICE,
  handlers: {
    [RESTATE_HANDLER]: async (ctx, args) => ({ providerId: await ctx.run("charge", () => provider.charge(args)) }),
  },
});

restate
  .serve({ services: [service], port: Number(port) })
  .then((bound) => process.stdout.write(`restate service listening on http://127.0.0.1:${bound}\n`))
  .catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
