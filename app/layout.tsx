// Root document: html and body, the console's styles and the default page title.
import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "opledger", template: "%s · opledger" },
  description: "Operator console for the ledger of agents' side-effecting tool calls.",
};

export default function RootLayout({ children }: Readonly<{ children: ReactNode }>) {
  return (
    <html lang="en">
      <body className="min-h-dvh text-sm">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
