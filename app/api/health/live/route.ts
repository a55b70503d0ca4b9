// GET /api/health/live: liveness — 200 while this process serves HTTP; it never asks the database, so a database outage
// takes instances out of rotation (readiness) without getting them all restarted.
import { json } from "@/lib/api/problem";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return json({ status: "ok" });
}
