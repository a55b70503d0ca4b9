// Compression of the agent plane's answers: the coding a client's Accept-Encoding prefers, and only answers from the
// threshold up, never one that says no-transform; the compressed body decodes to the answer itself.
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { jsonReply } from "@/lib/platform/http/problem";
import { acceptedCoding, COMPRESS_FROM_BYTES, compressed } from "./compression";

describe("acceptedCoding", () => {
  it.each([
    [undefined, null],
    ["", null],
    ["identity", null],
    ["gzip, deflate", "gzip"],
    ["gzip, deflate, br", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["BR;Q=1, GZIP;q=0.8", "br"],
    ["gzip;q=0, br;q=0", null],
    ["*", "br"],
    ["*;q=0.3, br;q=0", "gzip"],
    ["gzip;q=nonsense", null],
  ])("%s -> %s", (header, coding) => {
    expect(acceptedCoding(header)).toBe(coding);
  });
});

describe("compressed", () => {
  const large = jsonReply({ text: "x".repeat(COMPRESS_FROM_BYTES) });

  it("compresses a large answer the way the client accepts, and says so to caches", () => {
    const gzip = compressed(large, "gzip");
    expect(gzip.headers).toMatchObject({ "content-encoding": "gzip", vary: "accept-encoding" });
    expect(gunzipSync(gzip.body as Buffer).toString()).toBe(large.body);
    const br = compressed(large, "gzip, br");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body as Buffer).toString()).toBe(large.body);
  });

  it("sends a large answer as it is to a client that accepts neither, with Vary all the same", () => {
    const plain = compressed(large, undefined);
    expect(plain.body).toBe(large.body);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("accept-encoding");
  });

  it("leaves small answers, and those that say no-transform, alone", () => {
    const small = jsonReply({ status: "ok" });
    expect(compressed(small, "gzip, br")).toEqual({ headers: small.headers, body: small.body });
    const kept = jsonReply({ text: "x".repeat(COMPRESS_FROM_BYTES) }, 200, {
      "cache-control": "no-store, no-transform",
    });
    expect(compressed(kept, "gzip")).toEqual({ headers: kept.headers, body: kept.body });
  });
});
