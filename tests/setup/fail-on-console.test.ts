// Self-test of the console guard: stray output fails the test, expected output can be asserted and cleared.
import { describe, expect, onTestFailed, test } from "vitest";
import { consoleError, consoleWarn, unexpectedConsoleOutput } from "./fail-on-console";

describe("unexpectedConsoleOutput", () => {
  test("is null when nothing was logged", () => {
    expect(unexpectedConsoleOutput({ error: [], warn: [] })).toBeNull();
  });

  test("names every logged message, formatted like the console would", () => {
    const message = unexpectedConsoleOutput({ error: [["lease %s lost", "op_1"]], warn: [["slow", 42]] });
    expect(message).toContain("2 unexpected console message(s)");
    expect(message).toContain("console.error: lease op_1 lost");
    expect(message).toContain("console.warn: slow 42");
  });
});

describe("the afterEach hook", () => {
  // Filled by the deliberately failing tests below, checked by the test after them (tests in a file run in order).
  const failures: string[] = [];

  test.fails("fails a test that calls console.error", () => {
    onTestFailed(({ task }) => {
      failures.push(...(task.result?.errors ?? []).map((error) => String(error.message)));
    });
    console.error("stray error", { id: 7 });
  });

  test.fails("fails a test that calls console.warn", () => {
    onTestFailed(({ task }) => {
      failures.push(...(task.result?.errors ?? []).map((error) => String(error.message)));
    });
    console.warn("stray warning");
  });

  test("reported the logged messages in those failures", () => {
    expect(failures).toHaveLength(2);
    expect(failures[0]).toContain("console.error: stray error { id: 7 }");
    expect(failures[1]).toContain("console.warn: stray warning");
  });

  test("lets a test assert on expected output and clear it", () => {
    console.error("expected failure");
    console.warn("expected warning");
    expect(consoleError).toHaveBeenCalledWith("expected failure");
    expect(consoleWarn).toHaveBeenCalledWith("expected warning");
    consoleError.mockClear();
    consoleWarn.mockClear();
  });
});
