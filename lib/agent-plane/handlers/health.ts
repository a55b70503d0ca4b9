// The probes. GET /api/health/live: liveness, 200 while this process serves HTTP; it never asks the database, so a
// database outage takes instances out of rotation (readiness) without getting them all restarted. GET /api/health:
// readiness, 200 only when this instance has started and its database answers; 503 otherwise.
import { jsonReply, problemReply } from "@/lib/platform/http/problem";
import { ledger } from "@/lib/ledger/ledger";
import { databaseAnswers } from "@/lib/ledger/reads/database-health";
import { ensureStarted } from "@/lib/platform/server/startup";
import { publicEndpoint } from "../endpoint";

export const liveEndpoint = publicEndpoint(() => jsonReply({ status: "ok" }));

export const readyEndpoint = publicEndpoint(async () => {
  try {
    await ensureStarted();
    await databaseAnswers(ledger());
    return jsonReply({ status: "ok" });
  } catch {
    return problemReply({
      status: 503,
      code: "database_unavailable",
      title: "Service unavailable",
      detail: "The database does not answer.",
    });
  }
});
