import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchWithOwnSignal } from "./mcp-fetch";

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    // A GET is the listening stream: it stays open until the client goes away.
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
      return;
    }
    req.resume();
    req.on("end", () => res.end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("fetchWithOwnSignal", () => {
  it("leaves no listener on the session's signal after its requests are answered", async () => {
    const session = new AbortController();
    for (let i = 0; i < 50; i++) {
      const response = await fetchWithOwnSignal(url, { method: "POST", body: "{}", signal: session.signal });
      expect(await response.json()).toEqual({ ok: true });
    }
    expect(getEventListeners(session.signal, "abort")).toHaveLength(0);
  });

  it("still ends the listening stream when the session's signal aborts", async () => {
    const session = new AbortController();
    const response = await fetchWithOwnSignal(url, { method: "GET", signal: session.signal });
    const reading = response.text();
    session.abort(new Error("transport closed"));
    await expect(reading).rejects.toThrow();
  });

  it("refuses a request whose session has already ended", async () => {
    const session = new AbortController();
    session.abort(new Error("transport closed"));
    await expect(fetchWithOwnSignal(url, { method: "POST", body: "{}", signal: session.signal })).rejects.toThrow(
      "transport closed",
    );
  });
});
