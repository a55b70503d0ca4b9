// GET /api/health: readiness — 200 only when this instance has started and its database answers; 503 otherwise.
import { json, problem } from "@/lib/api/problem";
import { ledger } from "@/lib/ledger/ledger";
import { databaseAnswers } from "@/lib/ledger/reads/database-health";
import { ensureStarted } from "@/lib/server/startup";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  try {
    await ensureStarted();
    await databaseAnswers(ledger());
    return json({ status: "ok" });
  } catch {
    return problem({
      status: 503,
      code: "database_unavailable",
      title: "Service unavailable",
      detail: "The database does not answer.",
    });
  }
}
