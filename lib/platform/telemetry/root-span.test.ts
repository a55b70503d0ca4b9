// The root span of background work: no parent even inside another span, the operations it touched (the first 100
// named, all counted), a link only to a caller's real span context; and bare work when tracing is off.
import { describe, expect, it } from "vitest";
import { only, parentId, tracedIntoMemory } from "@/tests/helpers/in-memory-tracing";
import { callerTrace } from "./caller-trace";
import { linkToCaller, OPERATION_IDS_CAP, rootSpan, touchedOperation } from "./root-span";
import { inSpan, NO_SPAN } from "./spans";

const ids = (n: number) => Array.from({ length: n }, (_, i) => `op-${i}`);

describe("rootSpan unconfigured", () => {
  it("runs its work bare with the span that records nothing, and touchedOperation does nothing", async () => {
    const span = await rootSpan("opledger sweep", {}, (s) => {
      touchedOperation("op-1");
      return Promise.resolve(s);
    });
    expect(span).toBe(NO_SPAN);
  });
});

describe("rootSpan", () => {
  const exporter = tracedIntoMemory();

  it("starts a trace of its own inside another span, names the first 100 operations and counts them all", async () => {
    exporter().reset();
    await inSpan("outer", {}, () =>
      rootSpan("opledger bulk approve", { "opledger.bulk.job_id": "job-1" }, () =>
        inSpan("opledger approve", {}, () => {
          for (const id of ids(OPERATION_IDS_CAP + 20)) touchedOperation(id);
          return Promise.resolve();
        }),
      ),
    );
    const root = only(exporter(), "opledger bulk approve");
    const inner = only(exporter(), "opledger approve");
    expect(parentId(root)).toBeUndefined();
    expect(root.spanContext().traceId).not.toBe(only(exporter(), "outer").spanContext().traceId);
    expect(parentId(inner)).toBe(root.spanContext().spanId);
    expect(root.attributes).toEqual({
      "opledger.bulk.job_id": "job-1",
      "opledger.operations": OPERATION_IDS_CAP + 20,
      "opledger.operation.ids": ids(OPERATION_IDS_CAP),
    });
  });

  it("links to the caller's span when there is one, and to nothing otherwise", async () => {
    exporter().reset();
    const caller = callerTrace("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    await rootSpan("opledger bulk reject", {}, () => Promise.resolve(), linkToCaller(caller));
    const [link] = only(exporter(), "opledger bulk reject").links;
    expect(link?.context).toMatchObject({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" });
    expect(linkToCaller(undefined)).toEqual([]);
  });

  it("a touched operation outside any root span goes nowhere", async () => {
    exporter().reset();
    await inSpan("opledger plan", {}, () => Promise.resolve(touchedOperation("op-1")));
    expect(only(exporter(), "opledger plan").attributes).toEqual({});
  });
});
