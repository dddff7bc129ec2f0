import type { Metadata } from "next";
import type { PageQuery } from "@/components/page-query";
import { taskFiltersFromQuery } from "@/components/tasks/task-filters";
import { TasksPage } from "@/components/tasks/tasks-page";

export const metadata: Metadata = { title: "Tasks" };

export default async function Page({ searchParams }: { searchParams: Promise<PageQuery> }) {
  return <TasksPage initial={taskFiltersFromQuery(await searchParams)} />;
}
