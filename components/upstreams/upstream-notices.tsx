"use client";
// The Upstreams page's success message: a confirmation's row turns into "has a contract" once the page is read again,
// so the message lives above the upstreams, where it outlasts the row that asked for it.
import { createContext, useContext, useState, type ReactNode } from "react";
import { Notice } from "@/components/admin/table";

const NotifyContext = createContext<(message: string) => void>(() => {});

export function UpstreamNotices({ children }: { children: ReactNode }) {
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <NotifyContext.Provider value={setNotice}>
      <Notice message={notice} onDismiss={() => setNotice(null)} />
      {children}
    </NotifyContext.Provider>
  );
}

/** Shows `message` above the upstreams until dismissed or replaced. */
export function useUpstreamNotice(): (message: string) => void {
  return useContext(NotifyContext);
}
