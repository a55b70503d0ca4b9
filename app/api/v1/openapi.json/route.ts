// GET /api/v1/openapi.json: the agent API contract as OpenAPI 3.1 (public: it holds no data).
import { openApiDocument } from "@/lib/api/openapi";
import { json, otherMethods } from "@/lib/api/problem";

export function GET(): Response {
  return json(openApiDocument());
}

const refused = otherMethods("GET");
export const POST = refused.POST;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
