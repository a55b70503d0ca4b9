// Large answers of the agent plane compressed for a client that accepts it: brotli or gzip, only from
// COMPRESS_FROM_BYTES up (the OpenAPI document is 79 KiB, a page of operations tens of KiB; the answers of the
// lifecycle and the gateway are well under it, and compressing them would cost more CPU than the bytes it saves on
// the wire). An answer that says `Cache-Control: no-transform` is sent as it is.
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Reply } from "@/lib/platform/http/problem";

/**
 * Below this many characters (bytes, for the ASCII of JSON) an answer goes as it is: a few TCP segments, where
 * compressing saves no round trip.
 */
export const COMPRESS_FROM_BYTES = 8 * 1024;

export type Coding = "br" | "gzip";

/**
 * The coding an Accept-Encoding header prefers (RFC 9110 12.5.3): the highest q of br and gzip, named or through
 * `*`, brotli on a tie; none when neither is acceptable (absent, or q=0).
 */
export function acceptedCoding(header: string | undefined): Coding | null {
  if (!header) return null;
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(",")) {
    const [name = "", ...params] = part.split(";").map((piece) => piece.trim());
    const q = params.find((param) => param.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  let best: Coding | null = null;
  let bestWeight = 0;
  for (const coding of ["br", "gzip"] as const) {
    const weight = weights.get(coding) ?? weights.get("*") ?? 0;
    if (weight > bestWeight) [best, bestWeight] = [coding, weight];
  }
  return best;
}

/** Brotli at quality 5: about gzip's speed at a better ratio; 11 (the default) is meant for files built once. */
const ENCODE: Record<Coding, (text: string) => Buffer> = {
  br: (text) => brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  gzip: (text) => gzipSync(text),
};

/** The last body compressed per coding: the OpenAPI document is the same text every time. */
const last = new Map<Coding, { text: string; bytes: Buffer }>();

function encoded(coding: Coding, text: string): Buffer {
  const seen = last.get(coding);
  if (seen?.text === text) return seen.bytes;
  const bytes = ENCODE[coding](text);
  last.set(coding, { text, bytes });
  return bytes;
}

/** The reply's headers and body as they go to a client that sent `acceptEncoding`. */
export function compressed(
  reply: Reply,
  acceptEncoding: string | undefined,
): { headers: Record<string, string>; body: string | Buffer | null } {
  const { headers, body } = reply;
  if (body === null || body.length < COMPRESS_FROM_BYTES || /no-transform/i.test(headers["cache-control"] ?? ""))
    return { headers, body };
  // Whether the answer is compressed depends on the request's Accept-Encoding: caches must know it either way.
  const varied = { ...headers, vary: headers.vary ? `${headers.vary}, accept-encoding` : "accept-encoding" };
  const coding = acceptedCoding(acceptEncoding);
  if (!coding) return { headers: varied, body };
  return { headers: { ...varied, "content-encoding": coding }, body: encoded(coding, body) };
}
