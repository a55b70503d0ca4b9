// Next.js configuration for the console and the agent API.
/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // NEXT_DIST_DIR lets two builds live side by side (for example a benchmark build beside the test build).
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  // Native and server-only packages stay out of the bundle.
  serverExternalPackages: ["better-sqlite3", "pg"],
};

module.exports = nextConfig;
