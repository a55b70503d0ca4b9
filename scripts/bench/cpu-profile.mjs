// OPLEDGER_BENCH_CPU_PROFILE=<dir>: loaded into a benchmark's server with `--import` through NODE_OPTIONS (Node 20 does
// not allow --cpu-prof there, and the launcher, scripts/launch.ts, passes its environment on but not its flags), it
// profiles the process from start to exit with the inspector and writes `<script>.<pid>.cpuprofile` into the directory
// (for Chrome's DevTools, any profile viewer, or scripts/bench/profile-summary.ts).
import fs from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const dir = process.env.OPLEDGER_BENCH_CPU_PROFILE;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  process.on("exit", () => {
    // An in-process session answers synchronously, so the profile is written before the process ends.
    session.post("Profiler.stop", (error, result) => {
      if (error) return console.error(`cpu profile: ${error.message}`);
      const name = `${path.basename(process.argv[1] ?? "node")}.${process.pid}.cpuprofile`;
      fs.writeFileSync(path.join(dir, name), JSON.stringify(result.profile));
    });
  });
}
