// Admin page: console users and API keys, for the admin role only; every change goes through an audited server action.
import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { Suspense } from "react";
import { ApiKeysSection } from "@/components/admin/api-keys-section";
import { UsersSection } from "@/components/admin/users-section";
import { PageHeader } from "@/components/ui/page-header";
import { ADMIN_LIST_LIMIT, listApiKeys, listUsers, MIN_PASSWORD_LENGTH } from "@/lib/platform/auth/admin";
import { ForbiddenError } from "@/lib/platform/auth/roles";
import { requirePageUser, type SessionUser } from "@/lib/platform/auth/session";
import { ledger } from "@/lib/ledger/ledger";
import { AdminSkeleton } from "./admin-skeleton";

export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  let admin: SessionUser;
  try {
    admin = await requirePageUser("admin");
  } catch (error) {
    // A signed-in viewer or operator gets a 403 and app/forbidden.tsx's explanation; anything else (the sign-in
    // redirect included) goes on up.
    if (!(error instanceof ForbiddenError)) throw error;
    forbidden();
  }
  // The checks above ran before anything was sent, so their answers carry real statuses; the lists may stream.
  return (
    <Suspense fallback={<AdminSkeleton />}>
      <AdminLists admin={admin} />
    </Suspense>
  );
}

async function AdminLists({ admin }: { admin: SessionUser }) {
  const now = new Date();
  const [users, apiKeys] = await Promise.all([listUsers(ledger(), now), listApiKeys(ledger())]);

  return (
    <>
      <PageHeader
        title="Admin"
        description={
          "Who can sign in to the console, with which role, and the API keys agents use. Every change is recorded " +
          "in the audit trail."
        }
      />
      <div className="flex flex-col gap-10">
        <UsersSection
          users={users}
          currentEmail={admin.email}
          minPasswordLength={MIN_PASSWORD_LENGTH}
          truncated={users.length >= ADMIN_LIST_LIMIT}
          now={now}
        />
        <ApiKeysSection apiKeys={apiKeys} users={users} truncated={apiKeys.length >= ADMIN_LIST_LIMIT} now={now} />
      </div>
    </>
  );
}
