import type { Metadata } from "next";
import { ProposalsPage } from "@/components/proposals/proposals-page";

export const metadata: Metadata = { title: "Proposals" };

export default function Page() {
  return <ProposalsPage />;
}
