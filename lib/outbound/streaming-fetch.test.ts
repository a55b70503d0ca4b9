// The streaming fetch: the body arrives while the server is still sending; a failure before the connection is a
// NotSentError, one after the request left is not; the https rule for secrets is judged on the resolved addresses.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { NotSentError, streamingFetch } from "./streaming-fetch";

let server: http.Server | null = null;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = null;
});

async function listen(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
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
});
