// What the Memory page shows, as its URL says it (`/memory?q=…&agentId=…&scope=…&source=…&mode=…`):
// read by the server page (app/(dashboard)/memory/page.tsx) so the first render
// already shows a link's search and filters, and written back by the client page
// (components/memory/memory-page.tsx) as they change. Not a client module, so the
// server can call it.
import { MEMORY_SCOPES, MEMORY_SOURCES, SEARCH_MODES } from "@/lib/contracts/memory";
import { firstValue, type PageQuery } from "../page-query";

export type MemoryView = { q: string; agentId: string; scope: string; source: string; mode: string };

/** Reads the view from a page's query; a scope, source or mode the page does not offer reads as none. */
export function memoryViewFromQuery(query: PageQuery): MemoryView {
  const one = (name: string) => firstValue(query, name);
  const offered = (value: string, options: readonly string[]) => (options.includes(value) ? value : "");
  return {
    q: one("q"),
    agentId: one("agentId"),
    scope: offered(one("scope"), MEMORY_SCOPES),
    source: offered(one("source"), MEMORY_SOURCES),
    mode: offered(one("mode"), SEARCH_MODES) || "auto",
  };
}

/** The query string for a view, leaving out what is at its default ("" for none). */
export function memoryViewQuery(view: MemoryView): string {
  const params = new URLSearchParams();
  if (view.q.trim()) params.set("q", view.q.trim());
  if (view.agentId) params.set("agentId", view.agentId);
  if (view.scope) params.set("scope", view.scope);
  if (view.source) params.set("source", view.source);
  if (view.mode && view.mode !== "auto") params.set("mode", view.mode);
  return params.toString();
}
