// The cross-site refusal of cookie-authenticated routes: which Origin and Sec-Fetch-Site combinations pass.
import { describe, expect, it } from "vitest";
import { crossSiteRefusal } from "./same-origin";

function request(method: string, headers: Record<string, string>): Request {
  return new Request("http://console.example:3000/api/console/anything", { method, headers });
}

describe("crossSiteRefusal", () => {
  it.each([
    [
      "GET from another site (reads are not state changes)",
      "GET",
      { host: "console.example:3000", origin: "https://evil.example" },
    ],
    ["HEAD from another site", "HEAD", { host: "console.example:3000", origin: "null" }],
    [
      "POST from the console's own origin",
      "POST",
      { host: "console.example:3000", origin: "http://console.example:3000" },
    ],
    [
      "POST behind a proxy that names the public host",
      "POST",
      { host: "10.0.0.5:3000", "x-forwarded-host": "ops.example.com", origin: "https://ops.example.com" },
    ],
    ["POST without Origin (not a browser: curl, a script)", "POST", { host: "console.example:3000" }],
    [
      "POST same-origin per Sec-Fetch-Site",
      "DELETE",
      { host: "console.example:3000", origin: "http://console.example:3000", "sec-fetch-site": "same-origin" },
    ],
  ])("lets through %s", (_label, method, headers) => {
    expect(crossSiteRefusal(request(method, headers))).toBeNull();
  });

  it.each([
    ["POST from another site", "POST", { host: "console.example:3000", origin: "https://evil.example" }],
    [
      "PUT with Origin: null (sandboxed frame, redirect chain)",
      "PUT",
      { host: "console.example:3000", origin: "null" },
    ],
    [
      "DELETE from the same host on another port",
      "DELETE",
      { host: "console.example:3000", origin: "http://console.example:4000" },
    ],
    [
      "PATCH with an Origin that is not a URL",
      "PATCH",
      { host: "console.example:3000", origin: "console.example:3000" },
    ],
    [
      "POST the browser marks cross-site even without Origin",
      "POST",
      { host: "console.example:3000", "sec-fetch-site": "cross-site" },
    ],
    [
      "POST the browser marks same-site (a sibling subdomain) even with a matching Origin",
      "POST",
      { host: "console.example:3000", origin: "http://console.example:3000", "sec-fetch-site": "same-site" },
    ],
    [
      "POST the browser marks cross-site with the console's own Origin",
      "POST",
      { host: "console.example:3000", origin: "http://console.example:3000", "sec-fetch-site": "cross-site" },
    ],
    [
      "POST whose X-Forwarded-Host list only later names the origin",
      "POST",
      { host: "a:1", "x-forwarded-host": "b:2, evil.example", origin: "http://evil.example" },
    ],
  ])("refuses %s with a 403 problem", async (_label, method, headers) => {
    const refused = crossSiteRefusal(request(method, headers));
    expect(refused?.status).toBe(403);
    expect(refused?.headers.get("content-type")).toBe("application/problem+json");
    expect(await refused?.json()).toMatchObject({ status: 403, code: "cross_site_request", title: "Forbidden" });
  });
});
