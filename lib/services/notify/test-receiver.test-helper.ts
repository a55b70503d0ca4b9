// A webhook receiver for tests: a local HTTP server that keeps every request and answers as told.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";

export interface Received {
  headers: Record<string, string>;
  body: string;
  status: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The statuses of the next answers, in order; then 204. */
  answers: number[];
  close(): Promise<void>;
}

export function newWhsec(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const status = answers.shift() ?? 204;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      received.push({ headers, body: Buffer.concat(chunks).toString("utf8"), status });
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(status >= 400 ? "receiver says no" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
