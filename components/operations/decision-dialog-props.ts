// What the actions bar gives each dialog that decides on an operation.
import type { OperationDetail } from "@/lib/ledger/reads/operations";

export interface DecisionDialogProps<Answer> {
  /** The operation as the person saw it when they opened the dialog, kept while refreshes arrive. */
  snapshot: OperationDetail;
  pending: boolean;
  /** A refusal or a lost request, in the console's words. */
  error: string | null;
  fieldErrors: Record<string, string[]> | undefined;
  /** The operation moved on while the dialog was open: confirming will be refused. */
  changedMeanwhile: boolean;
  onCancel: () => void;
  onConfirm: (answer: Answer) => void;
}
