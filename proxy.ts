// Runs before routing: a malformed percent-escape in an API path gets a 400 problem document instead of Next's bare 500.
import { NextResponse, type NextRequest } from "next/server";

export function proxy(request: NextRequest): NextResponse | undefined {
  try {
    decodeURIComponent(request.nextUrl.pathname);
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

export const config = { matcher: "/api/:path*" };
