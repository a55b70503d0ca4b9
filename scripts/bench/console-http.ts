// The console's reads over HTTP against the production build: latency per route one request at a time, and memory under
// load.
import { performance } from "node:perf_hooks";
import type { ConsoleServer } from "./console-server";
import { sampleRss } from "./process-memory";

async function get(server: ConsoleServer, path: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${server.baseUrl}${path}`, {
    headers: { cookie: server.cookie, accept: "application/json" },
  });
  await response.arrayBuffer();
  const elapsed = performance.now() - started;
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  return elapsed;
}

/** Milliseconds of `count` requests to one path, one after the other (server time plus one local round trip). */
export async function sampleRoute(server: ConsoleServer, path: string, count: number): Promise<number[]> {
  await get(server, path);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push(await get(server, path));
  return samples;
}

/**
 * `concurrency` clients requesting the paths round-robin for `seconds`, as several operators' tabs do; the server's
 * resident
 * memory (its whole process tree) is sampled every 100 ms. Returns the peak and the number of requests served.
 */
export async function loadWithMemory(
  server: ConsoleServer,
  paths: string[],
  concurrency: number,
  seconds: number,
): Promise<{ peakRssMiB: number; requests: number }> {
  const until = performance.now() + seconds * 1000;
  const rss = sampleRss(server.pid, 100);
  let requests = 0;
  let samples: number[] = [];
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async (_, worker) => {
        for (let i = worker; performance.now() < until; i++) {
          await get(server, paths[i % paths.length]!);
          requests += 1;
        }
      }),
    );
  } finally {
    samples = rss.stop();
  }
  return { peakRssMiB: Math.max(...samples), requests };
}
