// The demo support desk as an MCP server: find_customer (reads), create_ticket, add_note and close_ticket (effects),
// misbehaving now and then as DeskFaults says.
import { setTimeout as delay } from "node:timers/promises";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { SupportDesk } from "./desk";
import type { DeskFault, DeskFaults } from "./desk-faults";

/** Longer than any demo contract's timeoutMs, so a late answer is a timeout to the gateway. */
export const DESK_LATE_ANSWER_MS = 10_000;

function answer(text: string, extra: Partial<CallToolResult> = {}): CallToolResult {
  return { content: [{ type: "text", text }], ...extra };
}

function refusal(text: string): CallToolResult {
  return answer(text, { isError: true });
}

/** Waits without keeping the process alive: when the gateway stops the upstream, a late answer is not owed. */
function late(): Promise<void> {
  return delay(DESK_LATE_ANSWER_MS, undefined, { ref: false });
}

/**
 * Runs an effect under a fault: "busy" answers before committing, the others commit first (the effect is what the
 * gateway must never repeat blindly), then answer late or as an error.
 */
async function withFault(fault: DeskFault, commit: () => CallToolResult): Promise<CallToolResult> {
  if (fault === "busy") return refusal("The desk is busy; nothing was changed. Try again in a moment.");
  if (fault === "slow") await late();
  const result = commit();
  if (result.isError) return result;
  if (fault === "hang_after_commit") await late();
  if (fault === "error_after_commit")
    return refusal("The change was saved, but notifying the customer failed; the desk reports an error.");
  return result;
}

export function createDeskServer(desk: SupportDesk, faults: DeskFaults): McpServer {
  const server = new McpServer({ name: "opledger-demo-desk", version: "1.0.0" });

  server.registerTool(
    "find_customer",
    {
      description: "Find a customer of the support desk by email address.",
      inputSchema: { email: z.string().describe("The customer's email address") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ email }) =>
      withFault(faults.next("find_customer"), () => {
        const customer = desk.findCustomer(email);
        return customer
          ? answer(`${customer.name} is customer ${customer.id} (${customer.email}).`, {
              structuredContent: { ...customer },
            })
          : answer(`No customer has the email ${email}.`);
      }),
  );

  server.registerTool(
    "create_ticket",
    {
      description: "Open a support ticket for a customer. Every call opens a new ticket.",
      inputSchema: { customer: z.string().describe("A customer id such as cus_ada"), subject: z.string().max(200) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ customer, subject }) =>
      withFault(faults.next("create_ticket"), () => {
        if (!desk.hasCustomer(customer)) return refusal(`There is no customer ${customer}; nothing was created.`);
        const ticket = desk.createTicket(customer, subject, new Date());
        return answer(`Created ticket ${ticket.id} for ${customer}: ${subject}`, {
          structuredContent: { ticket: ticket.id },
        });
      }),
  );

  server.registerTool(
    "add_note",
    {
      description: "Add an internal note to a ticket. Every call adds a note.",
      inputSchema: { ticket: z.string().describe("A ticket id such as T-0001"), text: z.string().max(2000) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ ticket, text }) =>
      withFault(faults.next("add_note"), () => {
        const found = desk.ticket(ticket);
        if (!found) return refusal(`There is no ticket ${ticket}; no note was added.`);
        const updated = desk.addNote(found, text);
        return answer(`Added a note to ${ticket} (${updated.notes.length} notes).`);
      }),
  );

  server.registerTool(
    "close_ticket",
    {
      description: "Close a ticket and notify the customer. Closing a closed ticket changes nothing.",
      inputSchema: { ticket: z.string().describe("A ticket id such as T-0001") },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ ticket }) =>
      withFault(faults.next("close_ticket"), () => {
        const found = desk.ticket(ticket);
        if (!found) return refusal(`There is no ticket ${ticket}; nothing was closed.`);
        if (found.status === "closed") return answer(`${ticket} was already closed.`);
        desk.closeTicket(found);
        return answer(`Closed ${ticket}.`);
      }),
  );

  return server;
}
