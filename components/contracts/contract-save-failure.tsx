// What the contract form says when a save was refused: a conflict, fields to fix, an ended session or a missing role.
import Link from "next/link";
import { linkClass, Notice } from "@/components/ui/form-controls";

export interface SaveFailure {
  code: string;
  message: string;
  /** The server's messages by form name; "" holds those about the contract as a whole. */
  errors: Record<string, string[]>;
}

export function SaveFailureNotice({
  failure,
  fieldCount,
  tool,
  baseVersion,
}: {
  failure: SaveFailure;
  fieldCount: number;
  tool: string;
  baseVersion: number | undefined;
}) {
  const toolPath = `/contracts/${encodeURIComponent(tool)}`;
  switch (failure.code) {
    case "contract_conflict":
      return (
        <Notice tone="warning" title="Not saved: this contract changed while you were editing it" alert>
          <p>{failure.message}</p>
          {baseVersion !== undefined ? (
            <p className="mt-1.5 flex flex-wrap gap-x-4 gap-y-1">
              <a href={`${toolPath}?from=${baseVersion}`} target="_blank" rel="noopener" className={linkClass}>
                See what changed since version {baseVersion} (new tab)
              </a>
              <a href={`${toolPath}/edit`} className={linkClass}>
                Reload the form with the latest version (your changes here are discarded)
              </a>
            </p>
          ) : (
            <p className="mt-1.5">
              <Link href={toolPath} className={linkClass}>
                Open the existing contract
              </Link>
            </p>
          )}
        </Notice>
      );
    case "invalid_input":
      return (
        <Notice tone="error" title="Nothing was saved" alert>
          {fieldCount > 0
            ? `${fieldCount} ${fieldCount === 1 ? "field needs" : "fields need"} attention; the messages are next ` +
              `to ${fieldCount === 1 ? "it" : "them"}.`
            : failure.message}
          {failure.errors[""] ? <span> {failure.errors[""].join(" ")}</span> : null}
        </Notice>
      );
    case "unauthenticated":
      return (
        <Notice tone="error" title="Your session has ended; nothing was saved" alert>
          <Link
            href={`/signin?callbackUrl=${encodeURIComponent(`${toolPath}${baseVersion !== undefined ? "/edit" : ""}`)}`}
            className={linkClass}
          >
            Sign in again
          </Link>{" "}
          in another tab, then save again.
        </Notice>
      );
    case "forbidden":
      return (
        <Notice tone="error" title="Your role cannot change contracts; nothing was saved" alert>
          {failure.message} Ask an admin to make this change.
        </Notice>
      );
    default:
      return (
        <Notice tone="error" title="Nothing was saved" alert>
          {failure.message}
        </Notice>
      );
  }
}
