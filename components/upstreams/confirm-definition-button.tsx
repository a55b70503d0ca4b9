"use client";
// An admin confirms the definition an upstream now gives a contracted tool that changed since it was classified: the
// gateway lists and calls the tool again. The hash is the definition the admin was shown; a newer one is refused.
import { useRouter } from "next/navigation";
import { buttonClass } from "@/components/ui/button-styles";
import { useAdminAction } from "@/components/admin/use-admin-action";
import { confirmToolDefinitionAction } from "@/lib/actions/upstream-actions";

export function ConfirmDefinitionButton({ tool, hash }: { tool: string; hash: string }) {
  const router = useRouter();
  const { run, pending, failure } = useAdminAction(confirmToolDefinitionAction);
  return (
    <span className="mt-1 flex flex-col items-start gap-1">
      <button
        type="button"
        className={buttonClass("secondary", "sm")}
        disabled={pending}
        onClick={() => run({ tool, hash }, () => router.refresh())}
      >
        {pending ? "Confirming…" : "Confirm the new definition"}
      </button>
      {failure ? (
        <span role="alert" className="max-w-xs text-xs text-decision-unavailable-ink">
          {failure.message}
        </span>
      ) : null}
    </span>
  );
}
