// Next.js configuration for the console and the agent API.

/** Sent with every response Next.js serves; the agent plane sends the same (scripts/security-headers.cjs). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- this file is CommonJS, as Next.js loads it
const SECURITY_HEADERS = require("./scripts/security-headers.cjs");

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // NEXT_DIST_DIR lets two builds live side by side (for example a benchmark build beside the test build).
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  // Test-only hooks (lib/testing: kill points, race barriers) exist only in a build made with OPLEDGER_TEST_HOOKS=1
  // (npm test's build): the value is inlined at build time, "" otherwise, and the minifier drops the hooks' bodies.
  env: { OPLEDGER_TEST_HOOKS: process.env.OPLEDGER_TEST_HOOKS === "1" ? "1" : "" },
  // Native and server-only packages stay out of the bundle.
  serverExternalPackages: ["better-sqlite3", "pg"],
  experimental: {
    // forbidden() from next/navigation: a page the role may not see answers 403 (app/forbidden.tsx).
    authInterrupts: true,
  },
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

module.exports = nextConfig;
