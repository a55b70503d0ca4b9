// Next.js configuration for the console and the agent API.

/**
 * Sent with every response Next.js serves: pages, route handlers and their problem documents, static files. Pages
 * replace this Content-Security-Policy with proxy.ts's, which adds a script nonce; this one, without script-src,
 * keeps the rest (a JSON or SVG answer opened in a frame or as a document) from being framed, embedding plugins or
 * rebasing links. Strict-Transport-Security depends on the public URL, known only at run time: scripts/next-server.mjs
 * adds it.
 */
const SECURITY_HEADERS = [
  {
    key: "content-security-policy",
    value: "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'",
  },
  { key: "x-content-type-options", value: "nosniff" },
  { key: "referrer-policy", value: "strict-origin-when-cross-origin" },
  { key: "x-frame-options", value: "DENY" },
];

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
