// A page's URL query as the server page gets it (Next's `searchParams`) and as the
// client reads it (URLSearchParams), for the pages that keep their filters in the URL
// (components/tasks/task-filters.ts, components/memory/memory-view.ts). Not a client
// module, so the server can call it.

/** A page's query: each name with its value, or its values when repeated. */
export type PageQuery = Record<string, string | string[] | undefined>;

/** A name's value in a page's query, its first when repeated, "" when absent. */
export function firstValue(query: PageQuery, name: string): string {
  const value = query[name];
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/** A URL's query as a page's query: each name with all its values. */
export function pageQuery(url: URLSearchParams): PageQuery {
  return Object.fromEntries([...new Set(url.keys())].map((name) => [name, url.getAll(name)]));
}
