"use client";
// The Upstreams page's word after a confirmation, in the confirmed tool's row: the row turns into "has a contract"
// once the page is read again, which unmounts the dialog that got the answer, so the page keeps the message and the
// row shows it where the admin is looking (a long page may have scrolled far from its top).
import { createContext, useContext, useState, type ReactNode } from "react";

interface ConfirmedTool {
  tool: string;
  message: string;
}

const NoticeContext = createContext<{ confirmed: ConfirmedTool | null; notify: (next: ConfirmedTool) => void }>({
  confirmed: null,
  notify: () => {},
});

export function UpstreamNotices({ children }: { children: ReactNode }) {
  const [confirmed, notify] = useState<ConfirmedTool | null>(null);
  return <NoticeContext.Provider value={{ confirmed, notify }}>{children}</NoticeContext.Provider>;
}

/** Shows a confirmation's message in that tool's row, until the page is loaded again or another is confirmed. */
export function useUpstreamNotice(): (next: ConfirmedTool) => void {
  return useContext(NoticeContext).notify;
}

/** The row's polite status region: empty, or the message of the confirmation made from this row. */
export function ConfirmedNotice({ tool }: { tool: string }) {
  const { confirmed } = useContext(NoticeContext);
  return (
    <span role="status" className="block text-xs text-ink-muted">
      {confirmed?.tool === tool ? confirmed.message : null}
    </span>
  );
}
