// The outcome command spends the run's allowance itself, in its own transaction (lib/ledger/commands/outcome.ts and
// lib/ledger/runs/run-spend.ts): this name is kept for the MCP gateway (lib/mcp/gateway/call-tool.ts), which reports
// through it, until it imports reportOutcome.
export { reportOutcome as reportOutcomeInRun } from "../commands/outcome";
