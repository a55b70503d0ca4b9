import { describe, expect, it } from "vitest";
import { configValue } from "./restate-server";

const DUMP = `roles = [
    "worker",
]
default-replication = 1

[bifrost]
default-provider = "replicated"

[bifrost.local]
rocksdb-disable-wal = false
rocksdb-disable-wal-fsync = false

[log-server]
rocksdb-disable-wal-fsync = false
`;

describe("configValue", () => {
  it("reads a key of the top level and of a section, quotes removed", () => {
    expect(configValue(DUMP, "", "default-replication")).toBe("1");
    expect(configValue(DUMP, "bifrost", "default-provider")).toBe("replicated");
  });

  it("tells a dotted section from its parent and from another section with the same key", () => {
    expect(configValue(DUMP, "bifrost.local", "rocksdb-disable-wal")).toBe("false");
    expect(configValue(DUMP, "bifrost", "rocksdb-disable-wal")).toBeUndefined();
    expect(
      configValue(
        DUMP.replace(
          "[log-server]\nrocksdb-disable-wal-fsync = false",
          "[log-server]\nrocksdb-disable-wal-fsync = true",
        ),
        "log-server",
        "rocksdb-disable-wal-fsync",
      ),
    ).toBe("true");
  });

  it("gives undefined for an absent key", () => {
    expect(configValue(DUMP, "log-server", "nothing")).toBeUndefined();
  });
});
