// The console shows an actor's label, and falls back to the id of records written before labels were kept.
import { describe, expect, it } from "vitest";
import { actorDisplay } from "./actor-label";

describe("actorDisplay", () => {
  it.each([
    [
      "a person",
      { actorType: "user", actorId: "01JUSER", onBehalfOf: null, actorLabel: "alice@example.com" },
      { name: "alice@example.com", kind: "person", forPerson: null },
    ],
    [
      "a key bound to a person: the label names both, the user id stays out of sight",
      {
        actorType: "api_key",
        actorId: "01JKEY",
        onBehalfOf: "01JUSER",
        actorLabel: "alice@example.com (key pager (opl_abcdefgh…))",
      },
      { name: "alice@example.com (key pager (opl_abcdefgh…))", kind: "API key", forPerson: null },
    ],
    [
      "an agent key",
      { actorType: "api_key", actorId: "01JKEY", onBehalfOf: null, actorLabel: "billing-agent (opl_abcdefgh…)" },
      { name: "billing-agent (opl_abcdefgh…)", kind: "API key", forPerson: null },
    ],
    [
      "the system",
      { actorType: "system", actorId: "system", onBehalfOf: null, actorLabel: "approval expiry" },
      { name: "approval expiry", kind: "opledger itself", forPerson: null },
    ],
    [
      "an older record: its id was the label, and onBehalfOf the person's email",
      { actorType: "api_key", actorId: "pager (opl_abcdefgh…)", onBehalfOf: "bob@example.com", actorLabel: null },
      { name: "pager (opl_abcdefgh…)", kind: "API key", forPerson: "bob@example.com" },
    ],
  ])("%s", (_name, actor, shown) => {
    expect(actorDisplay(actor)).toEqual(shown);
  });
});
