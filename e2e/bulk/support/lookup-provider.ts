// The provider of the bulk specs' outage: its lookup says which sends happened.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The provider's lookup endpoint, GET /records/{idempotencyKey}: a send it has is `{ id, status: "sent" }`, one it
 * never received is 404. `lookups` counts the questions.
 */
export class LookupProvider {
  lookups = 0;
  private constructor(
    private readonly server: Server,
    readonly sent: Set<string>,
  ) {}

  static async start(sent: Set<string>): Promise<LookupProvider> {
    let provider: LookupProvider | null = null;
    const server = createServer((req, res) => {
      if (provider) provider.lookups++;
      const key = decodeURIComponent((req.url ?? "").split("/").pop() ?? "");
      if (sent.has(key)) {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ id: `msg_${key}`, status: "sent" }));
      } else {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "no such message" }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    provider = new LookupProvider(server, sent);
    return provider;
  }

  get urlTemplate(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/records/{idempotencyKey}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The lookup part of a contract: not `auto`, so only a person's bulk action looks these up. */
export function lookupReconcile(provider: LookupProvider) {
  return {
    method: "lookup",
    urlTemplate: provider.urlTemplate,
    timeoutMs: 5_000,
    statusField: "status",
    appliedValues: ["sent"],
    auto: false,
  };
}
