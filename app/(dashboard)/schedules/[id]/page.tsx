import type { Metadata } from "next";
import { ScheduleDetail } from "@/components/schedules/schedule-detail";

export const metadata: Metadata = { title: "Schedule" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ScheduleDetail id={id} />;
}
