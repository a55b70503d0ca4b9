// Operation page: one operation's decision, actions, timeline, arguments and evidence.
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { OperationDetail } from "@/components/operations/operation-detail";
import { hasRole } from "@/lib/platform/auth/roles";
import { env } from "@/lib/platform/config/env";
import { requirePageUser, userActor } from "@/lib/platform/auth/session";
import { fourEyesKeepsOut } from "@/lib/ledger/commands/key-owners";
import { ledger } from "@/lib/ledger/ledger";
import { LedgerError } from "@/lib/ledger/errors";
import { getOperation } from "@/lib/ledger/reads/operations";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Operation ${id}` };
}

export default async function OperationPage({ params }: Props) {
  const user = await requirePageUser("viewer");
  const { id } = await params;
  let operation;
  try {
    operation = await getOperation(ledger(), id, new Date());
  } catch (error) {
    if (error instanceof LedgerError && error.code === "not_found") notFound();
    throw error;
  }
  // The buttons are only hidden from a viewer, and approval from a person four-eyes keeps out; every action checks the
  // role and the rule again on the server.
  const tied = await fourEyesKeepsOut(ledger(), id, userActor(user));
  return (
    <OperationDetail
      initial={operation}
      canAct={hasRole(user.role, "operator")}
      fourEyesTied={tied}
      traceUrl={env().OPLEDGER_TRACE_URL ?? null}
    />
  );
}
