"use client";

// The review queue: agent-proposed identity changes, pending first, each with a
// side-by-side diff to approve, approve edited, or reject with a note.
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { timeAgo, triggerLabel, triggerTitle } from "@/components/identity/format";
import { Badge } from "@/components/ui/badge";
import { Card, PageHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { api } from "@/lib/api-client";
import type { PROPOSAL_STATUSES, ProposalDto } from "@/lib/contracts/identity";
import { ProposalReview } from "./proposal-review";

type Status = (typeof PROPOSAL_STATUSES)[number];
/** Open ones first: what needs a reviewer. */
const FILTERS: readonly Status[] = ["pending", "conflict", "approved", "rejected", "refused", "superseded"];

const STATUS_TONES: Record<Status, "accent" | "ok" | "danger" | "warn" | "neutral"> = {
  pending: "accent",
  conflict: "warn",
  approved: "ok",
  rejected: "danger",
  refused: "danger",
  superseded: "neutral",
};

export function StatusBadge({ status }: { status: Status }) {
  return <Badge tone={STATUS_TONES[status]}>{status}</Badge>;
}

export function ProposalsPage() {
  const [status, setStatus] = useState<Status>("pending");
  const [selectedId, setSelectedId] = useState<string | null>(null);
  // A pick from the list: on a phone the review sits below the list, so it is
  // brought into view (and focused, for keyboards and screen readers).
  const [picked, setPicked] = useState(0);
  const review = useRef<HTMLElement>(null);
  useEffect(() => {
    const element = review.current;
    if (picked === 0 || !element) return;
    const top = element.getBoundingClientRect().top;
    // Beside the list (wide screens) it is in view already, and focus stays in the list.
    if (top >= 0 && top <= window.innerHeight / 3) return;
    element.scrollIntoView({ block: "start" });
    element.focus({ preventScroll: true });
  }, [picked]);
  const list = useQuery({
    queryKey: ["proposals", "list", status],
    queryFn: () => api<{ proposals: ProposalDto[]; total: number }>(`/api/v1/proposals?status=${status}`),
  });
  const counts = useQuery({
    queryKey: ["proposals", "open-counts"],
    queryFn: async () => {
      const [pending, conflict] = await Promise.all(
        (["pending", "conflict"] as const).map((s) => api<{ total: number }>(`/api/v1/proposals/count?status=${s}`)),
      );
      return { pending: pending?.total ?? 0, conflict: conflict?.total ?? 0 };
    },
  });
  const proposals = list.data?.proposals ?? [];
  const selected = proposals.find((p) => p.id === selectedId) ?? proposals[0] ?? null;

  return (
    <div>
      <PageHeader
        title="Proposals"
        description="Changes agents proposed to their own identity files. Nothing changes until you approve it."
      />
      <div role="tablist" aria-label="Proposal status" className="mb-4 flex flex-wrap gap-1">
        {FILTERS.map((s) => (
          <button
            key={s}
            type="button"
            role="tab"
            aria-selected={s === status}
            onClick={() => {
              setStatus(s);
              setSelectedId(null);
            }}
            data-testid={`proposal-filter-${s}`}
            className={cn(
              "rounded-md border px-3 py-1.5 text-sm capitalize",
              s === status ? "border-accent bg-accent/10 font-medium text-accent" : "border-border bg-panel text-fg-muted hover:text-fg",
            )}
          >
            {s}
            {(s === "pending" || s === "conflict") && counts.data && counts.data[s] > 0 ? (
              <span className="ml-1.5 rounded-full bg-accent px-1.5 text-xs text-accent-fg">{counts.data[s]}</span>
            ) : null}
          </button>
        ))}
      </div>
      <div className="grid gap-4 lg:grid-cols-[340px_minmax(0,1fr)]">
        <Card className="h-fit overflow-hidden">
          {list.isPending ? (
            <Loading label="Loading proposals…" />
          ) : list.isError ? (
            <ErrorState error={list.error} />
          ) : proposals.length === 0 ? (
            <EmptyState title={status === "pending" ? "Nothing to review" : `No ${status} proposals`}>
              {status === "pending"
                ? "When an agent on the standard profile wants to change its SOUL, IDENTITY or USER file, the proposal shows up here."
                : "Pick another status to browse decided proposals."}
            </EmptyState>
          ) : (
            <ul className="divide-y divide-border" data-testid="proposal-list">
              {proposals.map((p) => (
                <li key={p.id}>
                  <button
                    type="button"
                    onClick={() => {
                      setSelectedId(p.id);
                      setPicked((n) => n + 1);
                    }}
                    className={cn("w-full px-4 py-3 text-left hover:bg-muted", selected?.id === p.id && "bg-accent/5")}
                    data-testid={`proposal-${p.id}`}
                  >
                    <div className="flex items-start justify-between gap-2 text-sm">
                      <span className="min-w-0 break-words font-medium" data-testid="proposal-title">
                        {p.agentName} · {p.path}
                      </span>
                      <StatusBadge status={p.status} />
                    </div>
                    <p className="mt-1 line-clamp-2 text-xs text-fg">{p.reason}</p>
                    <p className="mt-1 flex items-center gap-2 text-xs text-fg-muted">
                      <span title={triggerTitle(p.trigger)}>{triggerLabel(p.trigger)}</span>·
                      <span title={new Date(p.createdAt).toLocaleString()}>{timeAgo(p.createdAt)}</span>
                      {p.baseMoved && (p.status === "pending" || p.status === "conflict") ? <Badge tone="warn">base moved</Badge> : null}
                    </p>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {list.data && list.data.total > proposals.length ? (
            <p className="border-t border-border px-4 py-2 text-xs text-fg-muted">
              Showing {proposals.length} of {list.data.total}.
            </p>
          ) : null}
        </Card>
        {selected ? (
          // scroll-mt clears the sticky top bar phones have. Below the list (narrow screens) the section is at
          // least a screen tall, so the pick can scroll it to the top while the review is still loading and short
          // (the page would otherwise end first, and leave it near the bottom of the screen).
          <section
            ref={review}
            tabIndex={-1}
            aria-label="Selected proposal"
            className="min-w-0 scroll-mt-16 outline-none max-lg:min-h-[calc(100dvh-4rem)]"
          >
            <ProposalReview
              key={selected.id}
              proposalId={selected.id}
              // It left the pending list: follow it to Conflict, where its merge can be resolved, rather than
              // showing the next proposal under the error about this one.
              onConflict={(id) => {
                setStatus("conflict");
                setSelectedId(id);
              }}
            />
          </section>
        ) : null}
      </div>
    </div>
  );
}
