// The observe-mode sentence: the common codes in words, the earlier operation named once, other codes by their reason.
import { expect, test } from "vitest";
import { wouldHaveText } from "./would-have";

test.each([
  ["approval_required", "held it for a person's approval"],
  ["breaker_open", "failed it fast: the circuit was open"],
  ["reconcile_required", "refused it: the outcome of an earlier call is unknown"],
  ["idempotency_key_reused", "refused it: the key belongs to a call with other arguments"],
])("%s is told in words, with the gate's reason beside them", (code, sentence) => {
  expect(wouldHaveText({ code, reason: "the gate's reason" })).toEqual({
    parts: [{ text: sentence }],
    earlierOperation: null,
    reason: "the gate's reason.",
  });
  expect(wouldHaveText({ code, reason: "A whole sentence." }).reason).toBe("A whole sentence.");
});

test("a replay names the earlier operation inside the sentence, and only there", () => {
  const text = wouldHaveText({ code: "replayed", reason: "confirmed earlier", operationId: "01EARLIER" });
  expect(text.parts).toEqual([
    { text: "answered with the kept result of operation " },
    { operationId: "01EARLIER" },
    { text: " without calling the tool" },
  ]);
  expect(text.earlierOperation).toBeNull();
  expect(wouldHaveText({ code: "replayed", reason: "r" }).parts).toEqual([
    { text: "answered with the kept result of an earlier operation without calling the tool" },
  ]);
});

test("another code is told by its reason, and an earlier operation is linked beside it", () => {
  expect(wouldHaveText({ code: "budget_spent", reason: "the retry budget of 2 is spent", operationId: "01E" })).toEqual(
    { parts: [{ text: "the retry budget of 2 is spent" }], earlierOperation: "01E", reason: null },
  );
  expect(wouldHaveText({ code: "reconcile_required", reason: "r", operationId: "01E" }).earlierOperation).toBe("01E");
});
