// Runs before routing. Pages: a Content-Security-Policy with a fresh script nonce, the path asked for (so sign-in can
// bring the person back to it), and a 307 to sign-in, before anything renders, when no session cookie decodes. Server
// actions: one sent from another site gets a 403 (lib/platform/auth/same-site.ts), arguments nested too deep for React's
// decoder a 400. API: a malformed percent-escape gets a 400 problem document instead of Next's bare 500. Never the only
// check: every page, server action and route handler checks the session and the role itself (the redirect and the
// refusals here are early answers).
import { getToken } from "next-auth/jwt";
import { NextResponse, type NextRequest } from "next/server";
import { jsonTextTooDeep } from "@/lib/platform/http/request-body";
import { crossSiteRefusal } from "@/lib/platform/http/same-origin";
import { REQUESTED_PATH_HEADER, signInPath } from "@/lib/platform/auth/requested-path";

/** Pages and files anyone may fetch without a session. */
const PUBLIC_PATHS = new Set(["/signin", "/favicon.ico", "/robots.txt", "/icon.svg"]);

/**
 * The policy of every page. Next.js reads the nonce from this header on the request and puts it on the scripts it
 * renders; 'strict-dynamic' lets those scripts load the chunks they need. Styles stay open to inline use: React
 * renders style attributes and the dialog library injects a style element, and a style cannot run code.
 * next.config.js sends a policy without script-src on every other response.
 */
function pageContentSecurityPolicy(nonce: string, development = process.env.NODE_ENV === "development"): string {
  return [
    "default-src 'self'",
    // React's development build evaluates code to rebuild server stacks; the production build never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64");
}

/**
 * A request the proxy may answer with a redirect to sign-in: reading a page. Server actions (POST with Next-Action)
 * must reach the action, which answers `unauthenticated` in a form the page can show.
 */
function needsSession(request: NextRequest): boolean {
  const { pathname } = request.nextUrl;
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (request.headers.has("next-action")) return false;
  return !PUBLIC_PATHS.has(pathname) && !pathname.startsWith("/_next/");
}

/**
 * Optimistic: a session cookie that decodes with NEXTAUTH_SECRET and has not expired. The page then checks the person
 * in the database (disabled, demoted, signed out elsewhere) and answers a redirect or a 403 itself.
 */
async function hasSessionCookie(request: NextRequest): Promise<boolean> {
  const secret = process.env.NEXTAUTH_SECRET;
  // Without a secret (`next dev` with no configuration) nothing can be decoded here; the page decides alone.
  if (!secret) return true;
  try {
    return (await getToken({ req: request, secret })) !== null;
  } catch {
    return false;
  }
}

function badRequest(code: string, detail: string): NextResponse {
  return NextResponse.json(
    { type: `urn:opledger:problem:${code}`, title: "Bad request", status: 400, detail, code },
    { status: 400, headers: { "content-type": "application/problem+json" } },
  );
}

/**
 * React decodes a server action's arguments recursively (JSON.parse with a reviver) before the action runs, and a few
 * thousand levels overflow the stack: a 500 no action can catch. This guard is far above the 64 levels consoleAction
 * accepts, so an input between the two still gets the action's own `invalid_input` answer.
 */
const ACTION_DEPTH_GUARD = 512;

async function actionArgumentsTooDeep(request: NextRequest): Promise<boolean> {
  try {
    if ((request.headers.get("content-type") ?? "").startsWith("multipart/form-data")) {
      const form = await request.clone().formData();
      return [...form.values()].some((v) => typeof v === "string" && jsonTextTooDeep(v, ACTION_DEPTH_GUARD));
    }
    return jsonTextTooDeep(await request.clone().text(), ACTION_DEPTH_GUARD);
  } catch {
    // A body that cannot be read here is React's to refuse.
    return false;
  }
}

export async function proxy(request: NextRequest): Promise<Response | undefined> {
  const { pathname, search } = request.nextUrl;
  // The MCP gateway authenticates with an agent key, never a session: it is an API, not a page.
  if (pathname.startsWith("/api/") || pathname === "/mcp") {
    try {
      decodeURIComponent(pathname);
      return undefined;
    } catch {
      return badRequest("malformed_path", "The request path has a malformed percent-escape.");
    }
  }
  const action = request.method === "POST" && request.headers.has("next-action");
  // A server action from another site: 403 before Next.js decodes it (its own Origin check answers 500, and it does
  // not read Sec-Fetch-Site at all). requireUser refuses it again inside the action.
  const crossSite = action ? crossSiteRefusal(request) : null;
  if (crossSite) return crossSite;
  if (action && (await actionArgumentsTooDeep(request))) {
    return badRequest(
      "invalid_input",
      `The action's arguments nest arrays and objects more than ${ACTION_DEPTH_GUARD} levels deep; at most 64 are accepted.`,
    );
  }
  const requested = `${pathname}${search}`;
  const policy = pageContentSecurityPolicy(newNonce());
  if (needsSession(request) && !(await hasSessionCookie(request))) {
    const response = NextResponse.redirect(new URL(signInPath(requested), request.url), 307);
    response.headers.set("content-security-policy", policy);
    return response;
  }
  const headers = new Headers(request.headers);
  headers.set(REQUESTED_PATH_HEADER, requested);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

// Everything but Next's own static files.
export const config = { matcher: ["/api/:path*", "/((?!_next/static|_next/image|favicon.ico).*)"] };
