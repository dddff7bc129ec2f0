import type { Metadata } from "next";
import { MemoryPage } from "@/components/memory/memory-page";
import { memoryViewFromQuery } from "@/components/memory/memory-view";
import type { PageQuery } from "@/components/page-query";

export const metadata: Metadata = { title: "Memory" };

export default async function Page({ searchParams }: { searchParams: Promise<PageQuery> }) {
  return <MemoryPage initial={memoryViewFromQuery(await searchParams)} />;
}
