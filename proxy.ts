// Runs before routing: a malformed percent-escape in an API path gets a 400 problem document instead of Next's bare
// 500,
// and a console page learns which path was asked for, so sign-in can bring the person back to it.
import { NextResponse, type NextRequest } from "next/server";
import { REQUESTED_PATH_HEADER } from "@/lib/auth/requested-path";

export function proxy(request: NextRequest): NextResponse | undefined {
  const { pathname, search } = request.nextUrl;
  if (!pathname.startsWith("/api/")) {
    const headers = new Headers(request.headers);
    headers.set(REQUESTED_PATH_HEADER, `${pathname}${search}`);
    return NextResponse.next({ request: { headers } });
  }
  try {
    decodeURIComponent(pathname);
    return undefined;
  } catch {
    return NextResponse.json(
      {
        type: "urn:opledger:problem:malformed_path",
        title: "Bad request",
        status: 400,
        detail: "The request path has a malformed percent-escape.",
        code: "malformed_path",
      },
      { status: 400, headers: { "content-type": "application/problem+json" } },
    );
  }
}

// Everything but Next's own static files.
export const config = { matcher: ["/api/:path*", "/((?!_next/static|_next/image|favicon.ico).*)"] };
