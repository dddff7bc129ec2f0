import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { TaskDetail } from "@/components/tasks/task-detail";
import { db } from "@/lib/db";

export const metadata: Metadata = { title: "Task" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // An unknown task answers 404 with the not-found page, not a 200 page saying so.
  if (!(await db.task.findUnique({ where: { id }, select: { id: true } }))) notFound();
  return <TaskDetail id={id} />;
}
