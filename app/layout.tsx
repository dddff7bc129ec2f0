import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Swarmdeck", template: "%s · Swarmdeck" },
  description: "Control plane for swarms of self-improving coding agents",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The CSP nonce of this request (proxy.ts): next-themes' inline theme script carries it.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en" suppressHydrationWarning>
      <body className="min-h-screen">
        <Providers nonce={nonce}>{children}</Providers>
      </body>
    </html>
  );
}
