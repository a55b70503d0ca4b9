// Runs e2e/bulk/support/bulk-ledger.ts in a process of its own and parses its JSON answer.
import { execFile } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "../../fixtures/test-env";

export function bulkLedger<T>(command: string, databaseUrl: string, ...args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(REPO_ROOT, "node_modules", ".bin", "tsx"),
      [path.join(REPO_ROOT, "e2e", "bulk", "support", "bulk-ledger.ts"), command, databaseUrl, ...args],
      { cwd: REPO_ROOT, timeout: 300_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`bulk-ledger ${command} failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout) as T);
      },
    );
  });
}

export interface JobReport {
  job: {
    jobId: string;
    status: string;
    matched: number;
    acted: number;
    skipped: number;
    stale: number;
    failed: number;
    leaseOwner: string | null;
    startedAt: string;
    finishedAt: string | null;
  } | null;
  phases: Record<string, number>;
  evidence: Record<string, number>;
  markedPerOperation: Record<string, number>;
  markedActions: Record<string, number>;
  jobAudit: { action: string; data: Record<string, unknown> | null }[];
}
