// The console's trace links: built from the template only for a W3C trace id, the id alone without a template, and
// nothing at all without a trace id.
import { describe, expect, it } from "vitest";
import { runTraces, traceLink, traceReference, validTraceId } from "./trace-link";

const ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const OTHER = "0af7651916cd43dd8448eb211c80319c";

describe("traceLink", () => {
  it("puts the trace id in every {traceId} of the template", () => {
    expect(traceLink("https://jaeger.example.test/trace/{traceId}", ID)).toBe(
      `https://jaeger.example.test/trace/${ID}`,
    );
    expect(traceLink("https://ui.example.test/?q={traceId}#t={traceId}", ID)).toBe(
      `https://ui.example.test/?q=${ID}#t=${ID}`,
    );
  });

  it.each([
    [undefined, ID],
    [null, ID],
    ["", ID],
    ["https://jaeger.example.test/trace/{traceId}", null],
    ["https://jaeger.example.test/trace/{traceId}", undefined],
  ])("gives nothing for template %j and trace id %j", (template, traceId) => {
    expect(traceLink(template, traceId)).toBeNull();
  });
});

describe("validTraceId", () => {
  it.each([
    ["0".repeat(32), "all zeros, the W3C's invalid trace id"],
    [ID.toUpperCase(), "upper case"],
    [ID.slice(1), "31 digits"],
    [`${ID}0`, "33 digits"],
    [`${ID.slice(0, 31)}g`, "not hex"],
    ["", "empty"],
    ["/../../admin?x={traceId}", "a path that would change the link"],
  ])("refuses %j (%s)", (value) => {
    expect(validTraceId(value)).toBeNull();
    expect(traceLink("https://jaeger.example.test/trace/{traceId}", value)).toBeNull();
    expect(traceReference("https://jaeger.example.test/trace/{traceId}", value)).toBeNull();
  });
});

describe("traceReference", () => {
  it("is a link with a template, the id to copy without one, and nothing without a trace id", () => {
    expect(traceReference("https://tempo.example.test/explore?traceId={traceId}", ID)).toEqual({
      kind: "link",
      traceId: ID,
      href: `https://tempo.example.test/explore?traceId=${ID}`,
    });
    expect(traceReference(undefined, ID)).toEqual({ kind: "id", traceId: ID });
    expect(traceReference("https://tempo.example.test/{traceId}", null)).toBeNull();
    expect(traceReference(undefined, null)).toBeNull();
  });
});

describe("runTraces", () => {
  it("links the run once when its operations share a trace, each operation when they do not, and nothing without", () => {
    expect(runTraces([{ traceId: ID }, { traceId: null }, { traceId: ID }])).toEqual({ kind: "run", traceId: ID });
    expect(runTraces([{ traceId: OTHER }, { traceId: ID }, { traceId: OTHER }, { traceId: "bad" }])).toEqual({
      kind: "per-operation",
      traces: 2,
    });
    expect(runTraces([{ traceId: null }, { traceId: "0".repeat(32) }])).toEqual({ kind: "none" });
    expect(runTraces([])).toEqual({ kind: "none" });
  });
});
