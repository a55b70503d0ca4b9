// Where the stdio bridge finds the gateway and with which key: OPLEDGER_URL (default http://127.0.0.1:3000) and
// OPLEDGER_API_KEY, checked before anything is sent.
export const DEFAULT_GATEWAY_URL = "http://127.0.0.1:3000";

export interface GatewaySettings {
  /** The gateway's MCP endpoint, `<OPLEDGER_URL>/mcp`. */
  endpoint: URL;
  apiKey: string;
}

/** The settings, or the one sentence that says what is missing or wrong. */
export function gatewaySettings(env: Record<string, string | undefined>): GatewaySettings | { problem: string } {
  const apiKey = env.OPLEDGER_API_KEY?.trim();
  if (!apiKey)
    return {
      problem:
        "opledger mcp: OPLEDGER_API_KEY is not set; give the bridge an agent key (npm run opledger -- " +
        "create-api-key --name NAME --scopes agent).",
    };
  const base = env.OPLEDGER_URL?.trim() || DEFAULT_GATEWAY_URL;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return {
      problem: `opledger mcp: OPLEDGER_URL "${base}" is not a URL; set it to the server, e.g. ${DEFAULT_GATEWAY_URL}.`,
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { problem: `opledger mcp: OPLEDGER_URL "${base}" must be an http or https URL.` };
  // The server's address, with or without a path prefix; a URL that already names the endpoint is taken as it is.
  if (!url.pathname.endsWith("/mcp")) url.pathname = `${url.pathname.replace(/\/+$/, "")}/mcp`;
  return { endpoint: url, apiKey };
}
