// Client-side shapes of the memory API answers.
import type { z } from "zod";
import type { MemoryDetail, MemoryHealth, memoryResultSchema } from "@/lib/contracts/memory";

export type { MemoryDetail, MemoryHealth };
export type SearchHit = z.infer<typeof memoryResultSchema> & { keywordScore: number; vectorScore: number | null };
export type SearchAnswer = { results: SearchHit[]; mode: "keyword" | "vector" | "hybrid"; fallbackReason: string | null };
export type ListAnswer = { memories: MemoryDetail[]; nextCursor: number | null };
export type AgentOption = { id: string; name: string; displayName: string; role: string };

export const SOURCE_LABELS: Record<string, string> = {
  manual: "Manual",
  file_index: "File",
  session_summary: "Session summary",
  task_completion: "Task completed",
  task_failure: "Task failed",
  lead_feedback: "Lead feedback",
  reflection: "Reflection",
};
