// The streaming fetch: the body arrives while the server is still sending; a failure before the connection is a
// NotSentError, one after the request left is not; the https rule for secrets is judged on the resolved addresses;
// connections are kept, each only for the addresses it was checked to, and one the upstream closed while idle makes
// no call fail and no request arrive twice.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { NotSentError, streamingFetch, type StreamingFetch } from "./streaming-fetch";

let server: http.Server | null = null;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = null;
});

async function listen(handler: http.RequestListener, host = "127.0.0.1"): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, host, resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** Calls `times` times one after the other, each answer read whole; every result, answered or failed. */
async function callInTurn(fetch: StreamingFetch, url: string, times: number): Promise<(string | Error)[]> {
  const results: (string | Error)[] = [];
  for (let i = 0; i < times; i++)
    results.push(
      await fetch(url, { method: "POST", body: `{"call":${i}}` })
        .then((response) => response.text())
        .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
    );
  return results;
}

describe("streamingFetch", () => {
  it("hands over the body as it streams", async () => {
    let finish = () => {};
    const url = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      finish = () => res.end("data: last\n\n");
    });
    const response = await streamingFetch({ allowPrivate: true, secretNames: [] })(url);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: first\n\n");
    finish();
    await reader.cancel();
  });

  it("fails as sent (not NotSentError) when the connection breaks after the request left", async () => {
    const url = await listen((req) => req.socket.destroy());
    const error: unknown = await streamingFetch({ allowPrivate: true, secretNames: [] })(url, {
      method: "POST",
      body: "{}",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(NotSentError);
  });

  it("refuses before connecting: private addresses when not allowed, and a secret over http off loopback", async () => {
    const url = await listen((_req, res) => res.end());
    await expect(streamingFetch({ allowPrivate: false, secretNames: [] })(url)).rejects.toThrow(NotSentError);
    const publicName = streamingFetch({
      allowPrivate: true,
      secretNames: ["OPLEDGER_SECRET_X"],
      resolve: () => Promise.resolve([{ address: "93.184.216.34", family: 4 }]),
    });
    await expect(publicName("http://localhost:1/")).rejects.toThrow(/OPLEDGER_SECRET_X is only sent over https/);
  });

  it("keeps the connection between requests", async () => {
    const connections = new Set<unknown>();
    const url = await listen((req, res) => {
      connections.add(req.socket);
      req.resume().on("end", () => res.end("ok"));
    });
    const results = await callInTurn(streamingFetch({ allowPrivate: true, secretNames: [] }), url, 10);
    expect(results).toEqual(Array(10).fill("ok"));
    expect(connections.size).toBe(1);
  });

  it.each(["closes", "resets"])(
    "an upstream that %s an idle connection just as the next call takes it: the call goes on a new one, once",
    async (how) => {
      const arrived: string[] = [];
      const connections: Socket[] = [];
      const url = await listen((req, res) => {
        if (!connections.includes(req.socket)) connections.push(req.socket);
        let text = "";
        req.on("data", (chunk: Buffer) => (text += chunk.toString()));
        req.on("end", () => {
          arrived.push(text);
          res.end("ok");
        });
      });
      const fetch = streamingFetch({ allowPrivate: true, secretNames: [] });
      const [first] = await callInTurn(fetch, url, 1);
      // The close is on its way when the next call takes the kept connection: written at once, the request would
      // go to a connection the upstream no longer reads, and whether it arrived could not be known.
      if (how === "closes") connections[0]?.destroy();
      else connections[0]?.resetAndDestroy();
      const second = await fetch(url, { method: "POST", body: '{"call":1}' }).then((response) => response.text());
      expect([first, second]).toEqual(["ok", "ok"]);
      expect(arrived).toEqual(['{"call":0}', '{"call":1}']);
      expect(connections).toHaveLength(2);
    },
  );

  it("a request that reached the upstream on a kept connection is never sent again, and fails as sent", async () => {
    const arrived: string[] = [];
    const url = await listen((req, res) => {
      let text = "";
      req.on("data", (chunk: Buffer) => (text += chunk.toString()));
      req.on("end", () => {
        arrived.push(text);
        if (arrived.length === 1) res.end("ok");
        else req.socket.destroy();
      });
    });
    const [first, second] = await callInTurn(streamingFetch({ allowPrivate: true, secretNames: [] }), url, 2);
    expect(first).toBe("ok");
    expect(second).toBeInstanceOf(Error);
    expect(second).not.toBeInstanceOf(NotSentError);
    expect(arrived).toEqual(['{"call":0}', '{"call":1}']);
  });

  it("keeps a connection only for requests whose own check gave the address it is connected to", async () => {
    const reached: string[] = [];
    const url = await listen((req, res) => {
      reached.push(req.socket.localAddress ?? "");
      req.resume().on("end", () => res.end("ok"));
    }, "0.0.0.0");
    let answer = "127.0.0.1";
    const fetch = streamingFetch({
      allowPrivate: true,
      secretNames: [],
      resolve: () => Promise.resolve([{ address: answer, family: 4 }]),
    });
    const named = url.replace("127.0.0.1", "upstream.test");
    await callInTurn(fetch, named, 2);
    answer = "127.0.0.2";
    await callInTurn(fetch, named, 2);
    expect(reached).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.2"]);
  });
});
