"use client";

import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, Search } from "lucide-react";
import { useEffect, useState } from "react";
import { api } from "@/lib/api-client";
import { MEMORY_SOURCES } from "@/lib/contracts/memory";
import { AgentFilterOptions } from "../agent-filter-options";
import { pageQuery } from "../page-query";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader, PageHeader } from "../ui/card";
import { Input, Select } from "../ui/input";
import { EmptyState, ErrorState, Loading } from "../ui/states";
import { useTypedBeforeHydration } from "../use-typed-before-hydration";
import { useUrlView } from "../use-url-view";
import { InjectLearningDialog } from "./inject-learning-dialog";
import { MemoryDetailDialog } from "./memory-detail-dialog";
import { HEALTH_QUERY_KEY, MemoryHealthPanel } from "./memory-health-panel";
import { type AgentOption, type ListAnswer, type MemoryDetail, type SearchAnswer, type SearchHit, SOURCE_LABELS } from "./memory-types";
import { type MemoryView, memoryViewFromQuery, memoryViewQuery } from "./memory-view";

type Filters = { agentId: string; scope: string; source: string };

function ScoreBar({ score }: { score: number }) {
  return (
    <div className="flex items-center gap-2" title="0..1 on every mode (see lib/memory/README.md)">
      <div className="h-1.5 w-16 overflow-hidden rounded bg-muted">
        <div className="h-full bg-accent" style={{ width: `${Math.round(score * 100)}%` }} />
      </div>
      <span className="font-mono text-xs tabular-nums" data-testid="memory-score">
        {score.toFixed(2)}
      </span>
    </div>
  );
}

function MemoryRow({
  memory,
  agents,
  onOpen,
  hit,
}: {
  memory: MemoryDetail | SearchHit;
  agents: AgentOption[];
  onOpen: () => void;
  hit?: SearchHit;
}) {
  const agent = agents.find((a) => a.id === memory.agentId);
  return (
    <li>
      <button
        type="button"
        onClick={onOpen}
        className="flex w-full items-start gap-3 px-4 py-2.5 text-left hover:bg-muted/60"
        data-testid="memory-row"
      >
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-1.5">
            <span className="min-w-0 break-words text-sm font-medium" data-testid="memory-name">
              {memory.name}
            </span>
            <Badge tone={memory.scope === "swarm" ? "accent" : "neutral"}>{memory.scope}</Badge>
            <Badge tone={memory.source === "task_failure" ? "danger" : memory.source === "lead_feedback" ? "warn" : "neutral"}>
              {SOURCE_LABELS[memory.source] ?? memory.source}
            </Badge>
          </div>
          <p className="mt-0.5 line-clamp-2 text-xs text-fg-muted">{memory.content}</p>
        </div>
        {/* At most 40 % of the row: a long agent name wraps rather than squeezing the memory to a letter. */}
        <div className="flex max-w-[40%] shrink-0 flex-col items-end gap-1 text-right text-xs text-fg-muted">
          {hit ? <ScoreBar score={hit.score} /> : null}
          {hit ? (
            <span
              className="font-mono text-[11px]"
              title="Relevance by the query's words (kw) and by meaning (vec), each 0 to 1; the bar above combines them. A vec of 0 means the wording alone found it."
            >
              kw {hit.keywordScore.toFixed(2)}
              {hit.vectorScore !== null ? ` · vec ${hit.vectorScore.toFixed(2)}` : ""}
            </span>
          ) : null}
          <span className="max-w-full break-words">{agent ? agent.name : memory.agentId ? "unknown agent" : "swarm"}</span>
          <span>{new Date(memory.createdAt).toLocaleDateString()}</span>
        </div>
      </button>
    </li>
  );
}

/** A URL's search and filters as the page writes them. */
const urlView = (url: URLSearchParams) => memoryViewQuery(memoryViewFromQuery(pageQuery(url)));

/**
 * One of the search's filters, named as in the page's URL (memory-view.ts). What was
 * picked while the page was the server's HTML is kept. (Not used for the agent picker:
 * until its options arrive, it offers only "All agents" and a link's agent.)
 */
function FilterSelect({
  name,
  label,
  title,
  value,
  onValue,
  children,
}: {
  name: string;
  label: string;
  title?: string;
  value: string;
  onValue: (value: string) => void;
  children: React.ReactNode;
}) {
  const box = useTypedBeforeHydration<HTMLSelectElement>(value, onValue);
  return (
    <Select
      ref={box}
      name={name}
      value={value}
      onChange={(e) => onValue(e.target.value)}
      aria-label={label}
      title={title}
      data-testid={`memory-filter-${name}`}
    >
      {children}
    </Select>
  );
}

/**
 * `initial`: the search and filters a link or a reload asks for (`/memory?q=…`), read
 * by the server page (app/(dashboard)/memory/page.tsx); the URL then follows them. The
 * form's boxes carry the same names, so a search submitted before the page's scripts
 * have run (the form's own GET) comes back as such a link and is run. A link or Back
 * to other filters sets them (components/use-url-view.ts).
 */
export function MemoryPage({ initial }: { initial: MemoryView }) {
  const can = useCan();
  const [filters, setFilters] = useState<Filters>({ agentId: initial.agentId, scope: initial.scope, source: initial.source });
  const [draft, setDraft] = useState(initial.q);
  const [query, setQuery] = useState(initial.q.trim());
  const [mode, setMode] = useState(initial.mode);
  // What was typed while the page was the server's HTML is kept (and what was picked:
  // FilterSelect).
  const draftBox = useTypedBeforeHydration<HTMLInputElement>(draft, setDraft);
  useUrlView(memoryViewQuery({ q: query, ...filters, mode }), memoryViewQuery(initial), urlView, (url) => {
    const asked = memoryViewFromQuery(pageQuery(url));
    setDraft(asked.q);
    setQuery(asked.q.trim());
    setFilters({ agentId: asked.agentId, scope: asked.scope, source: asked.source });
    setMode(asked.mode);
  });
  const [openId, setOpenId] = useState<number | null>(null);
  const [injecting, setInjecting] = useState(false);

  const agents = useQuery({ queryKey: ["agents"], queryFn: () => api<{ agents: AgentOption[] }>("/api/v1/agents") });
  const agentList = agents.data?.agents ?? [];

  const list = useInfiniteQuery({
    queryKey: ["memories", "list", filters],
    enabled: !query,
    initialPageParam: null as number | null,
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ limit: "30" });
      if (filters.agentId) params.set("agentId", filters.agentId);
      if (filters.scope) params.set("scope", filters.scope);
      if (filters.source) params.set("source", filters.source);
      if (pageParam) params.set("cursor", String(pageParam));
      return api<ListAnswer>(`/api/v1/memories?${params}`);
    },
    getNextPageParam: (last) => last.nextCursor,
  });

  const search = useQuery({
    queryKey: ["memories", "search", query, filters.agentId, filters.scope, mode],
    enabled: Boolean(query),
    queryFn: () =>
      api<SearchAnswer>("/api/v1/memories/search", {
        body: {
          query,
          limit: 30,
          scope: filters.scope || "all",
          mode,
          ...(filters.agentId ? { agentId: filters.agentId } : {}),
        },
      }),
  });

  // A search is recorded server-side: refresh the health panel so it shows up. The
  // panel's first load may still be on its way (a link or reload with ?q= starts both
  // at once) and may have been counted before this search: an invalidation alone would
  // join that request rather than start a new one, so it is cancelled first.
  const queryClient = useQueryClient();
  const answered = search.dataUpdatedAt;
  useEffect(() => {
    if (!answered) return;
    void queryClient
      .cancelQueries({ queryKey: HEALTH_QUERY_KEY })
      .then(() => queryClient.invalidateQueries({ queryKey: HEALTH_QUERY_KEY }));
  }, [answered, queryClient]);

  const setFilter = (key: keyof Filters) => (value: string) => setFilters((f) => ({ ...f, [key]: value }));
  const searchHits = (search.data?.results ?? []).filter((hit) => !filters.source || hit.source === filters.source);
  const listed = list.data?.pages.flatMap((page) => page.memories) ?? [];

  return (
    <div className="space-y-6">
      <PageHeader
        title="Memory"
        description="What the swarm has learned: lessons from failures, lead feedback, task outcomes and notes. Search it the way agents do."
        actions={
          can.write ? (
            <Button onClick={() => setInjecting(true)} data-testid="inject-learning">
              <Plus className="h-4 w-4" /> Inject learning
            </Button>
          ) : null
        }
      />

      <Card>
        <CardHeader
          title={query ? "Search results" : "Memories"}
          description={
            query
              ? search.data
                ? `Answered by ${search.data.mode} search${search.data.fallbackReason ? ` (${search.data.fallbackReason.replace(/_/g, " ")})` : ""}; scores are 0..1 in every mode.`
                : "Searching…"
              : "Newest first. Search to rank by relevance."
          }
        />
        <form
          className="space-y-2 border-b border-border px-4 py-3"
          onSubmit={(event) => {
            event.preventDefault();
            setQuery(draft.trim());
          }}
        >
          <div className="flex gap-2">
            <div className="relative flex-1">
              <Search className="pointer-events-none absolute left-2.5 top-2.5 h-4 w-4 text-fg-muted" />
              <Input
                className="pl-8"
                placeholder="e.g. flaky tests on CI"
                ref={draftBox}
                name="q"
                value={draft}
                onChange={(e) => setDraft(e.target.value)}
                data-testid="memory-search"
                aria-label="Search memories"
              />
            </div>
            <Button type="submit" data-testid="memory-search-submit">
              Search
            </Button>
            {query ? (
              <Button
                variant="secondary"
                onClick={() => {
                  setDraft("");
                  setQuery("");
                }}
              >
                Clear
              </Button>
            ) : null}
          </div>
          <div className="grid grid-cols-2 gap-2 md:grid-cols-4">
            <Select
              name="agentId"
              value={filters.agentId}
              onChange={(e) => setFilter("agentId")(e.target.value)}
              aria-label="Agent"
              data-testid="memory-filter-agent"
            >
              <AgentFilterOptions agents={agentList} picked={filters.agentId} loading={agents.isPending} failed={agents.isError} />
            </Select>
            <FilterSelect name="scope" label="Scope" value={filters.scope} onValue={setFilter("scope")}>
              <option value="">Any scope</option>
              <option value="agent">Agent scope</option>
              <option value="swarm">Swarm scope</option>
            </FilterSelect>
            <FilterSelect name="source" label="Source" value={filters.source} onValue={setFilter("source")}>
              <option value="">Any source</option>
              {MEMORY_SOURCES.map((source) => (
                <option key={source} value={source}>
                  {SOURCE_LABELS[source]}
                </option>
              ))}
            </FilterSelect>
            <FilterSelect
              name="mode"
              label="Search mode"
              title="Which search answers (best: hybrid when embeddings exist)"
              value={mode}
              onValue={setMode}
            >
              <option value="auto">Best mode</option>
              <option value="keyword">Keyword only</option>
              <option value="vector">Vector only</option>
              <option value="hybrid">Hybrid</option>
            </FilterSelect>
          </div>
        </form>

        {query ? (
          search.isPending ? (
            <Loading label="Searching…" />
          ) : search.isError ? (
            <ErrorState error={search.error} />
          ) : searchHits.length === 0 ? (
            <EmptyState title="Nothing relevant found">Try other words, or clear the filters.</EmptyState>
          ) : (
            <ul className="divide-y divide-border" data-testid="memory-results">
              {searchHits.map((hit) => (
                <MemoryRow key={hit.id} memory={hit} hit={hit} agents={agentList} onOpen={() => setOpenId(hit.id)} />
              ))}
            </ul>
          )
        ) : list.isPending ? (
          <Loading />
        ) : list.isError ? (
          <ErrorState error={list.error} />
        ) : listed.length === 0 ? (
          <EmptyState title="No memories yet">
            Agents store memories as they work: task outcomes, lessons from failures and notes. You can also inject a learning.
          </EmptyState>
        ) : (
          <>
            <ul className="divide-y divide-border" data-testid="memory-list">
              {listed.map((memory) => (
                <MemoryRow key={memory.id} memory={memory} agents={agentList} onOpen={() => setOpenId(memory.id)} />
              ))}
            </ul>
            {list.hasNextPage ? (
              <div className="border-t border-border p-3 text-center">
                <Button variant="secondary" busy={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
                  Load more
                </Button>
              </div>
            ) : null}
          </>
        )}
      </Card>

      <MemoryHealthPanel />

      <MemoryDetailDialog id={openId} onClose={() => setOpenId(null)} agents={agentList} canWrite={can.write} />
      <InjectLearningDialog open={injecting} onOpenChange={setInjecting} agents={agentList} />
    </div>
  );
}
