"use client";
// Error boundary for console pages: keeps the navigation and explains the failure inside the main area.
import { ErrorState } from "@/components/ui/error-state";

export default function ConsoleError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorState error={error} retry={retry} />;
}
