// Sent with every response: by Next.js (next.config.js's headers(): pages, console routes, static files) and by the
// agent plane (scripts/next-server.mjs sets them before lib/agent-plane answers). Pages replace this
// Content-Security-Policy with proxy.ts's, which adds a script nonce; this one, without script-src, keeps the rest (a
// JSON or SVG answer opened in a frame or as a document) from being framed, embedding plugins or rebasing links.
// Strict-Transport-Security depends on the public URL, known only at run time: scripts/next-server.mjs adds it.
module.exports = [
  {
    key: "content-security-policy",
    value: "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'",
  },
  { key: "x-content-type-options", value: "nosniff" },
  { key: "referrer-policy", value: "strict-origin-when-cross-origin" },
  { key: "x-frame-options", value: "DENY" },
];
