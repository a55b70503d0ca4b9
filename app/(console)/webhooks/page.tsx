// Webhooks page: where the events a person must act on are sent, for the admin role only
// (docs/authority.md#who-may-do-what: webhooks are an admin's); viewers and operators get a 403.
import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { Suspense } from "react";
import { WebhooksBoard } from "@/components/webhooks/webhooks-board";
import { PageHeader } from "@/components/ui/page-header";
import { ForbiddenError } from "@/lib/platform/auth/roles";
import { requirePageUser } from "@/lib/platform/auth/session";
import { ledger } from "@/lib/ledger/ledger";
import { listWebhooks } from "@/lib/services/notify/webhooks";
import { PageSkeleton } from "../page-skeleton";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  try {
    await requirePageUser("admin");
  } catch (error) {
    if (!(error instanceof ForbiddenError)) throw error;
    forbidden();
  }
  return (
    <Suspense fallback={<PageSkeleton />}>
      <WebhooksContent />
    </Suspense>
  );
}

async function WebhooksContent() {
  const now = new Date();
  const items = await listWebhooks(ledger());
  return (
    <>
      <PageHeader
        title="Webhooks"
        description={
          "Who is told when something waits for a person: signed Standard Webhooks events (or Slack messages), " +
          "delivered at least once and retried by the retry gate."
        }
      />
      <WebhooksBoard initial={{ items, at: now.toISOString() }} />
    </>
  );
}
