// The task list's filters, shared by the server page that reads them from the URL
// (app/(dashboard)/tasks/page.tsx) and the client list that shows them
// (components/tasks/tasks-page.tsx). Not a client module, so the server can call it.
import { MAX_TAG_CHARS, TAG_PATTERN } from "@/lib/contracts/tasks";
import { firstValue, type PageQuery } from "../page-query";

export const STATUS_FILTERS: { value: string; label: string }[] = [
  { value: "", label: "All statuses" },
  { value: "unassigned,pending,offered", label: "Waiting" },
  { value: "in_progress", label: "In progress" },
  { value: "completed", label: "Completed" },
  { value: "failed", label: "Failed" },
  { value: "cancelled", label: "Cancelled" },
  { value: "offered", label: "Proposed by agents" },
];

/** The filters a link or a reload asks for (`?status=offered&agentId=…&tag=…&q=…`). */
export type TaskFilters = { status: string; agentId: string; tag: string; q: string };

/** Reads the filters from a page's query, keeping only a status the list offers. */
export function taskFiltersFromQuery(query: PageQuery): TaskFilters {
  const one = (name: string) => firstValue(query, name);
  const status = one("status");
  return {
    status: STATUS_FILTERS.some((option) => option.value === status) ? status : "",
    agentId: one("agentId"),
    tag: one("tag"),
    q: one("q"),
  };
}

/** A tag filter as tags are stored: trimmed and lower-case. */
export function normaliseTag(tag: string): string {
  return tag.trim().toLowerCase();
}

/** Why a typed tag filter cannot be a tag (after normalising), or null when it can (or is empty). */
export function tagFilterProblem(tag: string): string | null {
  const normal = normaliseTag(tag);
  if (!normal) return null;
  if (normal.length > MAX_TAG_CHARS) return `No tag is longer than ${MAX_TAG_CHARS} characters.`;
  if (!TAG_PATTERN.test(normal)) return "Tags are letters, digits, '.', '_' and '-', with no spaces, starting with a letter or digit.";
  return null;
}

/**
 * The query string for the filters as the list asks the API for them (a tag trimmed and
 * lowercased; empty ones, and a tag that cannot be one, left out: the box says why).
 */
export function taskFiltersQuery(filters: TaskFilters): string {
  const params = new URLSearchParams();
  if (filters.status) params.set("status", filters.status);
  if (filters.agentId) params.set("agentId", filters.agentId);
  if (normaliseTag(filters.tag) && !tagFilterProblem(filters.tag)) params.set("tag", normaliseTag(filters.tag));
  if (filters.q.trim()) params.set("q", filters.q.trim());
  return params.toString();
}
