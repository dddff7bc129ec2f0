import type { Metadata } from "next";
import { MemoryPage } from "@/components/memory/memory-page";

export const metadata: Metadata = { title: "Memory" };

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { q } = await searchParams;
  return <MemoryPage initialQuery={(Array.isArray(q) ? q[0] : q) ?? ""} />;
}
