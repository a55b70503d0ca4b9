// The query plans behind the console's reads: the SQL Prisma really sends, captured from its query log, explained by
// the engine.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import Database from "better-sqlite3";
import { Client } from "pg";
import { sqliteFilePath } from "../../lib/platform/config/database-url";
import type { Ledger } from "@/lib/ledger/ledger";
import { PrismaClient, type Prisma } from "../../lib/platform/generated/prisma/client";
import { PrismaClient as PostgresPrismaClient } from "../../lib/platform/generated/prisma-pg/client";
import type { ConsoleCase } from "./console-queries";

export interface CasePlan {
  name: string;
  /** The statement on the Operation table (the page or the count); the contract and breaker look-ups are small. */
  sql: string;
  plan: string[];
}

interface QueryLogging {
  $on(event: "query", listener: (event: Prisma.QueryEvent) => void): void;
}

interface Captured {
  query: string;
  params: string;
}

function loggingClient(url: string): { ledger: Ledger; captured: Captured[] } {
  const captured: Captured[] = [];
  const log = [{ emit: "event", level: "query" }] as const;
  const db = sqliteFilePath(url)
    ? new PrismaClient({ adapter: new PrismaBetterSQLite3({ url }), log: [...log] })
    : (new PostgresPrismaClient({
        adapter: new PrismaPg({ connectionString: url, max: 1 }),
        log: [...log],
      }) as unknown as PrismaClient);
  // Typed as a ledger without logging (Db); the log option above is what makes it emit query events.
  (db as unknown as QueryLogging).$on("query", (event) => captured.push({ query: event.query, params: event.params }));
  // The console's reads go through Prisma only, so this ledger never opens a store.
  const ledger: Ledger = {
    engine: sqliteFilePath(url) ? "sqlite" : "postgresql",
    db,
    get store(): never {
      throw new Error("The query-plan benchmark reads through Prisma only.");
    },
    close: () => db.$disconnect(),
  };
  return { ledger, captured };
}

/**
 * Prisma logs parameters as a JSON array; dates come as text, which both engines accept where a timestamp is compared.
 */
function paramsOf(captured: Captured): unknown[] {
  try {
    const parsed = JSON.parse(captured.params) as unknown;
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

async function explainAll(url: string, statements: { name: string; captured: Captured }[]): Promise<CasePlan[]> {
  const file = sqliteFilePath(url);
  if (file) {
    const sqlite = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return statements.map(({ name, captured }) => {
        const rows = sqlite.prepare(`EXPLAIN QUERY PLAN ${captured.query}`).all(...paramsOf(captured)) as {
          detail: string;
        }[];
        return { name, sql: captured.query, plan: rows.map((r) => r.detail) };
      });
    } finally {
      sqlite.close();
    }
  }
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    const plans: CasePlan[] = [];
    for (const { name, captured } of statements) {
      const result = await pg.query<{ "QUERY PLAN": string }>(`EXPLAIN ${captured.query}`, paramsOf(captured));
      plans.push({ name, sql: captured.query, plan: result.rows.map((r) => r["QUERY PLAN"]) });
    }
    return plans;
  } finally {
    await pg.end();
  }
}

/** Runs each case once through a logging ledger and explains its statement on the Operation table. */
export async function explainCases(url: string, cases: ConsoleCase[], now: Date): Promise<CasePlan[]> {
  const { ledger, captured } = loggingClient(url);
  const statements: { name: string; captured: Captured }[] = [];
  try {
    for (const c of cases) {
      captured.length = 0;
      await c.run(ledger, now);
      const main = captured.find((q) => /FROM\s+[`"](main|public)[`"]\.[`"]Operation[`"]/i.test(q.query));
      if (!main) throw new Error(`${c.name}: no statement on the Operation table was logged`);
      statements.push({ name: c.name, captured: { ...main } });
    }
  } finally {
    await ledger.close();
  }
  return explainAll(url, statements);
}
