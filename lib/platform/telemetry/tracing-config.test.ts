// Which environments start tracing, and the sentence a bad value gets.
import { describe, expect, it } from "vitest";
import { tracingConfig } from "./tracing-config";

describe("tracingConfig", () => {
  it("stays off without an endpoint or exporter, and when disabled or set to none", () => {
    expect(tracingConfig({})).toBeNull();
    expect(tracingConfig({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" })).toBeNull();
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBeNull();
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" })).toBeNull();
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toBeNull();
  });

  it("starts OTLP over http/protobuf when an endpoint is named, and honours the protocol and the service name", () => {
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toEqual({
      exporters: ["otlp"],
      protocol: "http/protobuf",
      serviceName: "opledger",
    });
    expect(
      tracingConfig({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "ledger-eu",
      }),
    ).toEqual({ exporters: ["otlp"], protocol: "http/json", serviceName: "ledger-eu" });
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: "console, otlp" })?.exporters).toEqual(["console", "otlp"]);
  });

  it("refuses gRPC and exporters it does not have, naming the variable", () => {
    expect(() =>
      tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL is grpc.*http\/protobuf.*http\/json/);
    expect(() => tracingConfig({ OTEL_TRACES_EXPORTER: "zipkin" })).toThrow(/OTEL_TRACES_EXPORTER names zipkin/);
  });
});
