// A read-only documentation search: nothing to protect, so a PURE tool may repeat it freely.
import { problem, type Router } from "./routes";

const PAGES = ["Refund policy", "Idempotency keys", "Webhooks", "Rate limits", "Deploy freezes", "Email templates"];

export function searchRouter(): Router {
  return (req) => {
    if (req.method !== "GET" || req.path !== "/search/v1/search") return null;
    const query = req.query.get("q") ?? "";
    return {
      provider: "search",
      kind: "read",
      commit: () => ({
        status: 200,
        body: {
          query,
          results: PAGES.filter((_, i) => (query.length + i) % 2 === 0).map((title) => ({
            title,
            url: `https://docs.example.com/${title.toLowerCase().replaceAll(" ", "-")}`,
          })),
        },
      }),
      refuse: () => problem(400, "query_invalid", "The query could not be parsed."),
    };
  };
}
