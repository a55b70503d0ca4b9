// A production build of the console served on the large ledger for the benchmark: start, sign in as an admin, stop.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export interface ConsoleServer {
  baseUrl: string;
  pid: number;
  /** The session cookie of a signed-in admin, for the console's routes and pages. */
  cookie: string;
  stop: () => Promise<void>;
}

export const BENCH_ADMIN = { email: "bench-admin@opledger.test", password: "benchmark passphrase for the console" };

async function waitForHealth(baseUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the console server exited with ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the console server did not answer /api/health within 120 s:\n${output()}`);
}

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
export async function startConsoleServer(
  root: string,
  distDir: string,
  databaseUrl: string,
  port: number,
): Promise<ConsoleServer> {
  if (!fs.existsSync(path.join(root, distDir, "BUILD_ID"))) throw new Error(`no production build in ${distDir}`);
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = "";
  // The server `npm run serve` starts (scripts/launch.ts): Next.js's handler on scripts/next-server.mjs.
  const child = spawn(process.execPath, [path.join(root, "scripts", "next-server.mjs")], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_DIST_DIR: distDir,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      NEXTAUTH_SECRET: "benchmark secret, not for anything real, 0123456789",
      NEXTAUTH_URL: baseUrl,
      OPLEDGER_DEMO: "off",
      OPLEDGER_ADMIN_EMAIL: BENCH_ADMIN.email,
      OPLEDGER_ADMIN_PASSWORD: BENCH_ADMIN.password,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  try {
    await waitForHealth(baseUrl, child, () => output);
    return { baseUrl, pid: child.pid ?? 0, cookie: await signIn(baseUrl), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
