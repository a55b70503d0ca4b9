// Any other /api/v1 path: a 404 problem document, never an HTML page.
import { problem } from "@/lib/api/problem";

function notFound(req: Request): Response {
  return problem({
    status: 404,
    code: "not_found",
    title: "Not found",
    detail: `There is no API endpoint ${new URL(req.url).pathname}; see /api/v1/openapi.json.`,
  });
}

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
