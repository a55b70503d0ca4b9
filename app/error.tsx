"use client";
// Error boundary for failures above the console pages, such as the console frame itself.
import { ErrorState } from "@/components/ui/error-state";

export default function RootError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <main className="mx-auto max-w-3xl px-6 py-10">
      <ErrorState error={error} retry={retry} />
    </main>
  );
}
