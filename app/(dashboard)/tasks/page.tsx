import type { Metadata } from "next";
import { taskFiltersFromQuery } from "@/components/tasks/task-filters";
import { TasksPage } from "@/components/tasks/tasks-page";

export const metadata: Metadata = { title: "Tasks" };

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  return <TasksPage initial={taskFiltersFromQuery(await searchParams)} />;
}
