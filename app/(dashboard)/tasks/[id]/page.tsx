import type { Metadata } from "next";
import { TaskDetail } from "@/components/tasks/task-detail";

export const metadata: Metadata = { title: "Task" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <TaskDetail id={id} />;
}
