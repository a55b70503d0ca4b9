// GET /api/v1/openapi.json: the agent API contract as OpenAPI 3.1 (public: it holds no data).
import { openApiDocument } from "@/lib/api/openapi";
import { json } from "@/lib/api/problem";

export function GET(): Response {
  return json(openApiDocument());
}
