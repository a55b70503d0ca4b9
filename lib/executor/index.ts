// The executor's public surface: runTool for agent runtimes, and the typed client of the ledger API beneath it.
export {
  runTool,
  type CallProvider,
  type LeaseLossCode,
  type OperationSummary,
  type ProviderCallContext,
  type ProviderError,
  type ProviderResult,
  type RunToolOptions,
  type RunToolResult,
} from "./run-tool";
export { runOperation, type RunOperationOptions } from "./run-operation";
export {
  ApiProblem,
  OpledgerClient,
  type Attempt,
  type AuditEvent,
  type Contract,
  type ContractInput,
  type ContractList,
  type Decision,
  type Lease,
  type Operation,
  type OperationDetail,
  type OperationList,
  type OperationQuery,
  type OpledgerClientOptions,
  type OutcomeInput,
  type PlanInput,
  type ReconcileInput,
  type RunAllowance,
  type RunAllowanceInput,
} from "./client";
