"use client";
// Keyboard on the queues (Ledger, Unknowns, Approvals): j/k move a visible focus between operation rows, o or Enter
// opens one, a and r open the operation's Approve and Reconcile dialogs (which still ask for a reason), / focuses the
// search box, ? lists the keys. Nothing fires while typing in a field or while a dialog is open.
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Dialog, DialogContent } from "@/components/ui/dialog";
import { SEARCH_INPUT_ID } from "./search-box";

const ROW_SELECTOR = "[data-operation-row]";
const CURRENT = "data-keyboard-current";

/** The person actions the keys open, by the button the operation page shows for each. */
const PERSON_ACTIONS = {
  approve: { key: "a", button: "Approve retry" },
  reconcile: { key: "r", button: "Reconcile" },
} as const;
type KeyAction = keyof typeof PERSON_ACTIONS;

export const SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: ["j", "k"], what: "Next / previous operation in the list" },
  { keys: ["o", "Enter"], what: "Open the selected operation" },
  { keys: ["a"], what: "Approve: opens the approval dialog of the selected (or open) operation" },
  { keys: ["r"], what: "Reconcile: opens the reconcile dialog of the selected (or open) operation" },
  { keys: ["/"], what: "Search" },
  { keys: ["?"], what: "This list" },
];

/** Typing in a field, or a dialog in front: the keys belong to them. */
function keysBelongElsewhere(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return true;
  const target = event.target;
  if (target instanceof HTMLElement) {
    if (target.isContentEditable) return true;
    if (target.closest("input, textarea, select, [contenteditable='true']")) return true;
  }
  return document.querySelector("[role='dialog'], [role='alertdialog']") !== null;
}

function rows(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>(ROW_SELECTOR)];
}

function currentRow(): HTMLElement | null {
  return document.querySelector<HTMLElement>(`${ROW_SELECTOR}[${CURRENT}]`);
}

/** Marks the row with a visible outline (inline, so the table's own re-renders leave it alone) and focuses it. */
function select(row: HTMLElement): void {
  const previous = currentRow();
  if (previous && previous !== row) {
    previous.removeAttribute(CURRENT);
    previous.style.outline = "";
    previous.style.outlineOffset = "";
  }
  row.setAttribute(CURRENT, "");
  row.style.outline = "2px solid currentColor";
  row.style.outlineOffset = "-2px";
  if (row.tabIndex < 0 || !row.hasAttribute("tabindex")) row.tabIndex = -1;
  row.focus({ preventScroll: true });
  row.scrollIntoView({ block: "nearest" });
}

function move(step: 1 | -1): boolean {
  const all = rows();
  if (all.length === 0) return false;
  const at = all.findIndex((row) => row.hasAttribute(CURRENT));
  const next = at < 0 ? (step === 1 ? 0 : all.length - 1) : Math.min(all.length - 1, Math.max(0, at + step));
  select(all[next]!);
  return true;
}

/** The open operation page's button for the action, if it offers it. */
function actionButton(action: KeyAction): HTMLButtonElement | null {
  const group = document.querySelector("[role='group'][aria-label='Actions']");
  if (!group) return null;
  const label = PERSON_ACTIONS[action].button;
  return (
    [...group.querySelectorAll<HTMLButtonElement>("button")].find(
      (button) => button.textContent?.trim() === label && !button.disabled,
    ) ?? null
  );
}

export function KeyboardShortcuts() {
  const router = useRouter();
  const pathname = usePathname();
  const [help, setHelp] = useState(false);

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if (keysBelongElsewhere(event)) return;
      const row = currentRow();
      const rowId = row?.getAttribute("data-operation-row") ?? null;
      const open = (hash = "") => {
        if (rowId) router.push(`/operations/${encodeURIComponent(rowId)}${hash}`);
      };
      switch (event.key) {
        case "/":
          document.getElementById(SEARCH_INPUT_ID)?.focus();
          break;
        case "?":
          setHelp(true);
          break;
        case "j":
          if (!move(1)) return;
          break;
        case "k":
          if (!move(-1)) return;
          break;
        case "o":
          if (!rowId) return;
          open();
          break;
        case "Enter":
          // Enter on a link or button keeps its own meaning; on the selected row it opens the operation.
          if (!rowId || document.activeElement !== row) return;
          open();
          break;
        case PERSON_ACTIONS.approve.key:
        case PERSON_ACTIONS.reconcile.key: {
          const action: KeyAction = event.key === PERSON_ACTIONS.approve.key ? "approve" : "reconcile";
          const button = actionButton(action);
          if (button) button.click();
          else if (rowId) open(`#${action}`);
          else return;
          break;
        }
        default:
          return;
      }
      event.preventDefault();
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [router]);

  // `a` or `r` on a queue row opens the operation with #approve or #reconcile: its dialog opens once the page shows it.
  useEffect(() => {
    const action = window.location.hash.slice(1);
    if (action !== "approve" && action !== "reconcile") return;
    let tries = 0;
    const timer = window.setInterval(() => {
      const button = actionButton(action);
      if (button || ++tries > 50) {
        window.clearInterval(timer);
        window.history.replaceState(null, "", window.location.pathname + window.location.search);
        button?.click();
      }
    }, 100);
    return () => window.clearInterval(timer);
  }, [pathname]);

  return (
    <Dialog open={help} onOpenChange={setHelp}>
      {help ? (
        <DialogContent
          title="Keyboard shortcuts"
          description="On the Ledger, Unknowns and Approvals lists and on an operation's page. Every action still asks for its reason."
        >
          <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2" data-keyboard-help>
            {SHORTCUTS.map((shortcut) => (
              <div key={shortcut.keys.join()} className="contents">
                <dt className="flex items-start gap-1">
                  {shortcut.keys.map((key) => (
                    <kbd
                      key={key}
                      className="rounded border border-line-strong bg-surface-sunken px-1.5 py-0.5 font-mono text-xs text-ink"
                    >
                      {key}
                    </kbd>
                  ))}
                </dt>
                <dd className="text-ink-muted">{shortcut.what}</dd>
              </div>
            ))}
          </dl>
        </DialogContent>
      ) : null}
    </Dialog>
  );
}
