"use client";
// An admin confirms the definition an upstream now gives a contracted tool that changed since it was classified: a
// dialog says what is confirmed and asks why, then the tool gets a new contract version and the gateway lists and calls
// it again. The hash and contract version are what the admin was shown; anything newer is refused.
import { useRouter } from "next/navigation";
import { DialogFooter } from "@/components/admin/dialog-footer";
import { ReasonField } from "@/components/admin/field";
import { FormAlert } from "@/components/admin/form-alert";
import { useAdminDialog } from "@/components/admin/use-admin-action";
import { formText } from "@/components/ui/form-text";
import { buttonClass } from "@/components/ui/button-styles";
import { Dialog, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import type { UpstreamToolRow } from "@/lib/console/upstreams-view";
import { confirmToolDefinitionAction } from "@/lib/console/actions/upstream-actions";
import { useUpstreamNotice } from "./upstream-notices";

function listed(words: string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

export function ConfirmDefinitionButton({
  tool,
  changed,
}: {
  tool: string;
  changed: NonNullable<UpstreamToolRow["changed"]>;
}) {
  const router = useRouter();
  const notify = useUpstreamNotice();
  const { open, onOpenChange, pending, failure, fieldErrors, submitWith } = useAdminDialog(
    confirmToolDefinitionAction,
    // The row shows the tool's contract once the page is read again, and the message beside it.
    (message) => {
      notify({ tool, message });
      router.refresh();
    },
  );
  const submit = submitWith(
    (form) => ({
      tool,
      contractVersion: changed.contractVersion,
      hash: changed.hash,
      reason: formText(form, "reason"),
    }),
    (data) => `Confirmed as version ${data.version} of the ${data.tool} contract.`,
  );
  const next = changed.contractVersion + 1;

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={`mt-1 ${buttonClass("secondary", "sm")}`}>Confirm the new definition</DialogTrigger>
      <DialogContent
        title={`Confirm the new definition of ${tool}?`}
        busy={pending}
        closeOnOutsideClick={false}
        closeButton={false}
        description={
          <>
            The upstream changed the tool’s {listed(changed.fields) || "definition"} since its contract was classified
            (compare them under “What changed”). Confirming makes version {next} of its contract, with the rules of
            version {changed.contractVersion}, for the definition shown as “Now”: the gateway lists and calls the tool
            again. If the tool now does something its contract does not cover, edit the contract first: the change waits
            for a confirmation either way.
          </>
        }
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3.5">
          <FormAlert failure={failure} />
          <ReasonField
            errors={fieldErrors.reason}
            hint={`Recorded with your name as the reason for version ${next} of the contract.`}
          />
          <DialogFooter pending={pending} submitLabel="Confirm the new definition" pendingLabel="Confirming…" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
