import type { Metadata } from "next";
import { MemoryPage } from "@/components/memory/memory-page";
import { memoryViewFromQuery } from "@/components/memory/memory-view";

export const metadata: Metadata = { title: "Memory" };

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  return <MemoryPage initial={memoryViewFromQuery(await searchParams)} />;
}
