// The demo support desk behind the demo MCP upstream: customers, tickets and notes, in memory and optionally kept in a
// JSON file across restarts.
import fs from "node:fs";

export interface DeskCustomer {
  id: string;
  email: string;
  name: string;
}

export interface DeskTicket {
  id: string;
  customer: string;
  subject: string;
  status: "open" | "closed";
  notes: string[];
  createdAt: string;
}

interface DeskState {
  nextTicket: number;
  tickets: Record<string, DeskTicket>;
}

export const DESK_CUSTOMERS: readonly DeskCustomer[] = [
  { id: "cus_ada", email: "ada@example.com", name: "Ada Lovelace" },
  { id: "cus_grace", email: "grace@example.com", name: "Grace Hopper" },
  { id: "cus_linus", email: "linus@example.com", name: "Linus Torvalds" },
  { id: "cus_barbara", email: "barbara@example.com", name: "Barbara Liskov" },
  { id: "cus_ken", email: "ken@example.com", name: "Ken Thompson" },
];

export class SupportDesk {
  private state: DeskState;

  /** `stateFile`: where tickets are kept across restarts; null keeps them in memory. */
  constructor(private readonly stateFile: string | null) {
    this.state =
      stateFile && fs.existsSync(stateFile)
        ? (JSON.parse(fs.readFileSync(stateFile, "utf8")) as DeskState)
        : { nextTicket: 1, tickets: {} };
  }

  findCustomer(email: string): DeskCustomer | null {
    const wanted = email.trim().toLowerCase();
    return DESK_CUSTOMERS.find((customer) => customer.email === wanted) ?? null;
  }

  hasCustomer(id: string): boolean {
    return DESK_CUSTOMERS.some((customer) => customer.id === id);
  }

  ticket(id: string): DeskTicket | null {
    return this.state.tickets[id] ?? null;
  }

  /** A new ticket every time: the desk has no idempotency keys, which is why its contract is NON_RETRYABLE. */
  createTicket(customer: string, subject: string, now: Date): DeskTicket {
    const id = `T-${String(this.state.nextTicket).padStart(4, "0")}`;
    const ticket: DeskTicket = { id, customer, subject, status: "open", notes: [], createdAt: now.toISOString() };
    this.state = { nextTicket: this.state.nextTicket + 1, tickets: { ...this.state.tickets, [id]: ticket } };
    this.save();
    return ticket;
  }

  addNote(ticket: DeskTicket, text: string): DeskTicket {
    return this.replace({ ...ticket, notes: [...ticket.notes, text] });
  }

  closeTicket(ticket: DeskTicket): DeskTicket {
    return this.replace({ ...ticket, status: "closed" });
  }

  private replace(ticket: DeskTicket): DeskTicket {
    this.state = { ...this.state, tickets: { ...this.state.tickets, [ticket.id]: ticket } };
    this.save();
    return ticket;
  }

  /** Written before the tool answers, so a committed ticket survives the upstream being restarted. */
  private save(): void {
    if (!this.stateFile) return;
    const temporary = `${this.stateFile}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify(this.state));
    fs.renameSync(temporary, this.stateFile);
  }
}
