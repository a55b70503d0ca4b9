import { describe, expect, it } from "vitest";
import { parseStraceSummary } from "./strace-count";

describe("parseStraceSummary", () => {
  it("reads the calls column of each syscall, with or without errors, and leaves out the total", () => {
    const summary = `strace: Process 812 attached with 9 threads
strace: Process 812 detached
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 91.20    0.412000         515       800           fdatasync
  8.80    0.039000         390       100         2 fsync
------ ----------- ----------- --------- --------- ----------------
100.00    0.451000         501       900         2 total
`;
    expect(parseStraceSummary(summary)).toEqual({ fdatasync: 800, fsync: 100 });
  });

  it("gives nothing for a summary without calls", () => {
    const empty = `% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
100.00    0.000000           0         0           total
`;
    expect(parseStraceSummary(empty)).toEqual({});
  });
});
