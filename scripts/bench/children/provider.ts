// The provider both sides of a peer benchmark call for the tool call's effect (a charge), in a process of its own:
// `POST /charges` answers a new charge id, `GET /calls` how many charges it made, so a benchmark can check that each
// tool call reached it exactly once. Started by scripts/bench/bench-provider.ts; prints its URL when listening.
import http from "node:http";

const port = Number(process.argv[2]);
let calls = 0;

const server = http.createServer((request, response) => {
  response.setHeader("content-type", "application/json");
  if (request.method === "GET" && request.url === "/calls") {
    response.end(JSON.stringify({ calls }));
    return;
  }
  if (request.method !== "POST" || request.url !== "/charges") {
    response.statusCode = 404;
    response.end("{}");
    return;
  }
  // The body is read to its end, as a real provider's would be; its content does not change the answer.
  request.resume();
  request.on("end", () => {
    calls++;
    response.statusCode = 200;
    response.end(JSON.stringify({ id: `ch_${calls}` }));
  });
});
// Clients keep their connections between calls; Node's default (5 s) would close them between rounds.
server.keepAliveTimeout = 120_000;
server.listen(port, "127.0.0.1", () => process.stdout.write(`provider listening on http://127.0.0.1:${port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
