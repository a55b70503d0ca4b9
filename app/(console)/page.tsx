// Ledger page: every operation the agents have planned, newest first, filterable and live.
import type { Metadata } from "next";
import { LedgerTable } from "@/components/operations/ledger-table";
import { PageHeader } from "@/components/ui/page-header";
import { hasRole } from "@/lib/platform/auth/roles";
import { requirePageUser } from "@/lib/platform/auth/session";
import { readOperationPage } from "@/lib/console/ledger-page";
import { ledgerRequest, readLedgerLocation } from "@/lib/console/ledger-search";
import { ledger } from "@/lib/ledger/ledger";

export const metadata: Metadata = { title: "Ledger" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

function urlParams(query: Record<string, string | string[] | undefined>): URLSearchParams {
  return new URLSearchParams(
    Object.entries(query).flatMap(([key, value]) => [value ?? []].flat().map((v): [string, string] => [key, v])),
  );
}

export default async function LedgerPage({ searchParams }: Props) {
  const user = await requirePageUser("viewer");
  // The page of rows the URL names comes with the HTML, so it shows before the scripts have loaded and hydrated;
  // fetched from the browser it waited for all of them (1.8 s on the benchmark's ledger). The table polls on from there.
  const request = ledgerRequest(readLedgerLocation(urlParams(await searchParams)));
  const now = new Date();
  const page = await readOperationPage(ledger(), request, now);
  return (
    <>
      <PageHeader title="Ledger" description="Every side-effecting tool call your agents have made, newest first." />
      {/*
        The table reads its filters from the URL. No Suspense boundary around it: its rows belong in the first HTML, and
        a streamed boundary is shown only when React reveals it, which waits a frame, 300 ms after the previous reveal
        (the search box's) and behind the scripts' long tasks.
      */}
      <LedgerTable canAct={hasRole(user.role, "operator")} served={{ request, page, at: now.getTime() }} />
    </>
  );
}
