import { describe, expect, it } from "vitest";
import { metricTotal } from "./prometheus-text";

const EXPOSITION = `# HELP restate_rocksdb_wal_synced_total WAL syncs
# TYPE restate_rocksdb_wal_synced_total counter
restate_rocksdb_wal_synced_total{cluster_name="localcluster",node_name="bench",db="log-server"} 120
restate_rocksdb_wal_synced_total{cluster_name="localcluster",node_name="bench",db="db"} 3
restate_rocksdb_wal_synced_total_other{db="db"} 1000
restate_ingress_requests_total{status="ok",rpc="x\\"y,z"} 7 1733450000000
restate_up 1
`;

describe("metricTotal", () => {
  it("sums every series of a metric, and only that metric", () => {
    expect(metricTotal(EXPOSITION, "restate_rocksdb_wal_synced_total")).toBe(123);
  });

  it("keeps the series whose labels include the ones asked for", () => {
    expect(metricTotal(EXPOSITION, "restate_rocksdb_wal_synced_total", { db: "log-server" })).toBe(120);
    expect(metricTotal(EXPOSITION, "restate_rocksdb_wal_synced_total", { db: "nowhere" })).toBe(0);
  });

  it("reads escaped label values and ignores a trailing timestamp", () => {
    expect(metricTotal(EXPOSITION, "restate_ingress_requests_total", { rpc: 'x"y,z' })).toBe(7);
  });

  it("reads a sample without labels, and counts an absent metric as 0", () => {
    expect(metricTotal(EXPOSITION, "restate_up")).toBe(1);
    expect(metricTotal(EXPOSITION, "restate_absent_total")).toBe(0);
  });
});
