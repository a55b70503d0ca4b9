// The MCP gateway (docs/mcp.md): Streamable HTTP for any MCP client, with an agent key. The gateway answers Node's
// request and response (serveMcp); until the production server hands /mcp to it directly (the agent plane, issue #28),
// this route adapts Next's Web Request and Response to them.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable, Writable } from "node:stream";
import { apiRoute } from "@/lib/api/route";
import { mcpEndpointContext } from "@/lib/mcp/gateway/endpoint-context";
import { serveMcp } from "@/lib/mcp/gateway/mcp-endpoint";

/** The part of a ServerResponse serveMcp uses, writing into a Web Response that is handed over at writeHead. */
class ResponseAdapter extends Writable {
  #status = 200;
  #headers: Record<string, string> = {};
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #body = new ReadableStream<Uint8Array>({
    start: (controller) => {
      this.#controller = controller;
    },
    cancel: () => {
      this.destroy();
    },
  });
  #handOver!: (response: Response) => void;
  readonly response = new Promise<Response>((resolve) => {
    this.#handOver = resolve;
  });

  writeHead(status: number, headers: Record<string, string> = {}): this {
    this.#status = status;
    Object.assign(this.#headers, headers);
    this.#handOver(new Response(this.#body, { status: this.#status, headers: this.#headers }));
    return this;
  }

  /** The Response is handed over at writeHead already. */
  flushHeaders(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.#controller.enqueue(new Uint8Array(chunk));
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.#handOver(new Response(this.#body, { status: this.#status, headers: this.#headers }));
    this.#controller.close();
    done();
  }
}

async function handle(req: Request, res: ResponseAdapter, context: Parameters<typeof serveMcp>[2]): Promise<void> {
  const body = req.body ? Buffer.from(await req.arrayBuffer()) : Buffer.alloc(0);
  const headers: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const node = Object.assign(Readable.from(body.length > 0 ? [body] : []), {
    method: req.method,
    url: new URL(req.url).pathname,
    headers,
  });
  req.signal.addEventListener("abort", () => res.destroy(), { once: true });
  await serveMcp(node as unknown as IncomingMessage, res as unknown as ServerResponse, context);
}

const route = apiRoute(["agent"], ({ req, ledger, actor, now }) => {
  const res = new ResponseAdapter();
  handle(req, res, mcpEndpointContext(ledger, actor, now)).catch((error: unknown) => {
    console.error("opledger: /mcp failed:", error);
    if (!res.writableEnded) res.writeHead(500).end();
  });
  return res.response;
});

export const POST = route;
export const GET = route;
export const DELETE = route;
