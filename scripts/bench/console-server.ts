// A production build of the console served on the large ledger for the benchmark: start, sign in as an admin, stop.
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT, startProductionServer } from "./bench-server";

export interface ConsoleServer {
  baseUrl: string;
  pid: number;
  /** The session cookie of a signed-in admin, for the console's routes and pages. */
  cookie: string;
  stop: () => Promise<void>;
}

export const BENCH_ADMIN = { email: "bench-admin@opledger.test", password: "benchmark passphrase for the console" };

function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
}

/** Signs in through next-auth's credentials callback, as e2e/fixtures/login.ts does, and returns the session cookie. */
async function signIn(baseUrl: string): Promise<string> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: cookiesOf(csrf).join("; "),
      origin: baseUrl,
    },
    body: new URLSearchParams({
      csrfToken,
      email: BENCH_ADMIN.email,
      password: BENCH_ADMIN.password,
      callbackUrl: "/",
      json: "true",
    }),
  });
  const session = cookiesOf(response).find((c) => c.startsWith("next-auth.session-token="));
  if (!session) throw new Error(`signing in the benchmark admin failed (${response.status})`);
  return session;
}

/** The production server on the build in `distDir`, as `npm run serve` starts it after migrating, without the demo. */
export async function startConsoleServer(distDir: string, databaseUrl: string, port: number): Promise<ConsoleServer> {
  if (!fs.existsSync(path.join(REPO_ROOT, distDir, "BUILD_ID"))) throw new Error(`no production build in ${distDir}`);
  const server = await startProductionServer({
    distDir,
    databaseUrl,
    port,
    // The 1,000,000-operation ledger takes longer to open.
    startMs: 120_000,
    env: {
      NEXTAUTH_SECRET: "benchmark secret, not for anything real, 0123456789",
      OPLEDGER_ADMIN_EMAIL: BENCH_ADMIN.email,
      OPLEDGER_ADMIN_PASSWORD: BENCH_ADMIN.password,
    },
  });
  try {
    return { baseUrl: server.url, pid: server.pid, cookie: await signIn(server.url), stop: () => server.stop() };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
