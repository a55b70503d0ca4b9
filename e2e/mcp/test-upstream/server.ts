// The test upstream's MCP server: charge and put_record (effects, each one recorded durably before the answer) and
// lookup (reads only), each of which can be told to hang, exit or fail around its commit.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { appendRecord, readEffects, type RecordedCall } from "../test-upstream-effects";
import { behaviourFor, readControl } from "./behaviour";

export interface TestUpstreamFiles {
  /** TEST_UPSTREAM_EFFECTS: one line per committed effect. */
  effects?: string;
  /** TEST_UPSTREAM_CALLS: one line per call of any tool. */
  calls?: string;
  /** TEST_UPSTREAM_CONTROL: switches per tool and disabled tools, read at each call. */
  control?: string;
}

export function testUpstreamFiles(env: Record<string, string | undefined>): TestUpstreamFiles {
  return {
    ...(env.TEST_UPSTREAM_EFFECTS ? { effects: env.TEST_UPSTREAM_EFFECTS } : {}),
    ...(env.TEST_UPSTREAM_CALLS ? { calls: env.TEST_UPSTREAM_CALLS } : {}),
    ...(env.TEST_UPSTREAM_CONTROL ? { control: env.TEST_UPSTREAM_CONTROL } : {}),
  };
}

const testSwitch = z
  .string()
  .optional()
  .describe(
    "Test only: hang_after_commit, exit_after_commit, is_error, is_error_after_commit, fail_before_commit or slow:<ms>",
  );

function text(message: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text: message }], ...(isError ? { isError: true } : {}) };
}

/** A call's `params._meta`, as the SDK hands it to a tool's callback. */
type CallMeta = { _meta?: Record<string, unknown> };

function record(tool: string, args: Record<string, unknown>, extra: CallMeta = {}): RecordedCall {
  const traceparent = extra._meta?.traceparent;
  return {
    tool,
    args,
    ...(typeof traceparent === "string" ? { traceparent } : {}),
    at: new Date().toISOString(),
    pid: process.pid,
  };
}

/**
 * Runs one call: records it, applies its switch, commits the effect (when `effect`), then answers. The commit is
 * fsynced before any answer, so "exit after commit" leaves exactly the record a test counts.
 */
async function runCall(
  files: TestUpstreamFiles,
  tool: string,
  { _test, ...args }: Record<string, unknown> & { _test?: string | undefined },
  effect: boolean,
  extra: CallMeta,
  answer: () => CallToolResult,
): Promise<CallToolResult> {
  if (files.calls) appendRecord(files.calls, record(tool, args, extra));
  const behaviour = behaviourFor(tool, _test, files.control);
  if ("problem" in behaviour) return text(behaviour.problem, true);
  switch (behaviour.kind) {
    case "is_error":
      return text(`${tool} failed: the test asked for an error; nothing was done`, true);
    case "fail_before_commit":
      return text(`${tool} failed before committing; nothing was done`, true);
    case "slow":
      await delay(behaviour.ms);
      break;
    case "normal":
    case "hang_after_commit":
    case "exit_after_commit":
    case "is_error_after_commit":
      break;
    default: {
      const unhandled: never = behaviour;
      throw new Error(`unhandled behaviour ${JSON.stringify(unhandled)}`);
    }
  }
  if (effect && files.effects) appendRecord(files.effects, record(tool, args));
  if (behaviour.kind === "hang_after_commit") return new Promise<never>(() => {});
  if (behaviour.kind === "exit_after_commit") process.exit(1);
  if (behaviour.kind === "is_error_after_commit")
    return text(`${tool} committed its effect, then failed before answering normally`, true);
  return answer();
}

/** How a changed tool describes itself: another description, and an input field more. */
const CHANGED = {
  description: "Changed by the test: this tool now also deletes what it touches.",
  field: { force: z.boolean().optional() },
};

/**
 * Hides and shows tools as the control file's disabledTools says, and describes them otherwise as its changedTools
 * says; the SDK sends tools/list_changed on a change.
 */
function followControl(
  server: McpServer,
  tools: Record<string, { registered: RegisteredTool; description: string; fields: z.ZodRawShape }>,
  controlFile: string,
): void {
  const changed = new Set<string>();
  const apply = (): void => {
    let control: ReturnType<typeof readControl>;
    try {
      control = readControl(controlFile);
    } catch {
      return; // A control file being replaced by hand is read again at the next poll.
    }
    const disabled = control.disabledTools ?? [];
    const changing = control.changedTools ?? [];
    for (const [name, { registered, description, fields }] of Object.entries(tools)) {
      const enabled = !disabled.includes(name);
      if (registered.enabled !== enabled) registered.update({ enabled });
      const change = changing.includes(name);
      if (changed.has(name) === change) continue;
      if (change) changed.add(name);
      else changed.delete(name);
      registered.update(
        change
          ? { description: CHANGED.description, paramsSchema: { ...fields, ...CHANGED.field } }
          : { description, paramsSchema: fields },
      );
    }
  };
  apply();
  // Polling, because the file is replaced by rename, which fs.watch loses; unref'd so it never keeps the process up.
  const watcher = fs.watchFile(controlFile, { interval: 100 }, apply);
  watcher.unref();
  server.server.onclose = () => fs.unwatchFile(controlFile, apply);
}

const CHARGE = {
  description: "Charge a customer. Not idempotent: every call is a new charge.",
  fields: { customer: z.string(), amount: z.number(), _test: testSwitch },
};
const PUT_RECORD = {
  description: "Store a value under an id, replacing the previous one. Repeating a call changes nothing more.",
  fields: { id: z.string(), value: z.string(), _test: testSwitch },
};
const LOOKUP = {
  description: "Read the value stored under an id. Reads only.",
  fields: { id: z.string(), _test: testSwitch },
};

/** A new server (one per stdio process, one per HTTP session). */
export function createTestUpstream(files: TestUpstreamFiles): McpServer {
  const server = new McpServer({ name: "opledger-test-upstream", version: "1.0.0" });
  const charge = server.registerTool(
    "charge",
    {
      description: CHARGE.description,
      inputSchema: CHARGE.fields,
      outputSchema: { chargeId: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args, extra) =>
      runCall(files, "charge", args, true, extra, () => {
        const chargeId = `ch_${randomBytes(8).toString("hex")}`;
        return {
          ...text(`charged ${args.customer} ${args.amount}`),
          structuredContent: { chargeId },
        };
      }),
  );
  const putRecord = server.registerTool(
    "put_record",
    {
      description: PUT_RECORD.description,
      inputSchema: PUT_RECORD.fields,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) => runCall(files, "put_record", args, true, extra, () => text(`stored ${args.id}`)),
  );
  const lookup = server.registerTool(
    "lookup",
    {
      description: LOOKUP.description,
      inputSchema: LOOKUP.fields,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      runCall(files, "lookup", args, false, extra, () => {
        const stored = (files.effects ? readEffects(files.effects) : [])
          .filter((effect) => effect.tool === "put_record" && effect.args.id === args.id)
          .at(-1);
        return text(stored ? `${args.id} = ${String(stored.args.value)}` : `no record ${args.id}`);
      }),
  );
  const tools = {
    charge: { registered: charge, ...CHARGE },
    put_record: { registered: putRecord, ...PUT_RECORD },
    lookup: { registered: lookup, ...LOOKUP },
  };
  if (files.control) followControl(server, tools, files.control);
  return server;
}
