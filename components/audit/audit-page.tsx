"use client";

// The audit log: every mutation, newest first, paged by cursor, filtered by
// action (a family like "agent" or one action like "agent.created"), and a check
// of the hash chain that names the first broken row.
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { ChevronLeft, ChevronRight, ShieldAlert, ShieldCheck } from "lucide-react";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import type { AuditEventDto } from "@/lib/contracts/audit";
import { RelativeTime } from "../relative-time";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, PageHeader } from "../ui/card";
import { cn } from "../ui/cn";
import { Input } from "../ui/input";
import { EmptyState, ErrorState, Loading } from "../ui/states";

const PAGE_SIZE = 50;

type Verify = { ok: boolean; checked: number; brokenAt: number | null };

/** An event's data as key / value pairs a person reads: scalars as they are, nested values as indented JSON. */
function entries(data: unknown): [string, string][] {
  if (data === null || data === undefined) return [];
  if (typeof data !== "object") return [["value", String(data)]];
  return Object.entries(data as Record<string, unknown>).map(([key, value]) => [
    key.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase(),
    value === null ? "none" : typeof value === "object" ? JSON.stringify(value, null, 2) : String(value),
  ]);
}

function Details({ event }: { event: AuditEventDto }) {
  const pairs = entries(event.data);
  if (!pairs.length) return <span className="text-fg-muted">–</span>;
  const brief = pairs.filter(([, value]) => !value.includes("\n")).slice(0, 3);
  return (
    <details className="group" data-testid="audit-details">
      <summary
        className="flex cursor-pointer list-none gap-1 text-xs text-fg-muted marker:hidden hover:text-fg"
        title="Show every detail of this entry"
      >
        <ChevronRight className="mt-px size-3.5 shrink-0 transition-transform group-open:rotate-90" aria-hidden />
        <span className="line-clamp-2 break-words group-open:hidden">
          {brief.map(([key, value]) => `${key}: ${value.length > 60 ? `${value.slice(0, 60)}…` : value}`).join(" · ") || "details"}
        </span>
        <span className="hidden text-accent group-open:inline">Hide details</span>
      </summary>
      <dl className="mt-1 grid grid-cols-[minmax(5rem,auto)_1fr] gap-x-3 gap-y-1 text-xs">
        {pairs.map(([key, value]) => (
          <div key={key} className="contents">
            <dt className="text-fg-muted">{key}</dt>
            <dd className="min-w-0 whitespace-pre-wrap break-words font-mono">{value}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

function Target({ event }: { event: AuditEventDto }) {
  if (!event.targetType) return <span className="text-fg-muted">–</span>;
  const label = event.target.label ?? event.targetType;
  return (
    <div className="min-w-0">
      {event.target.href ? (
        <Link href={event.target.href} className="break-words text-accent hover:underline" data-testid="audit-target-link">
          {label}
        </Link>
      ) : (
        <span className="break-words">{label}</span>
      )}
      <p className="text-fg-muted">{event.targetType.replace(/_/g, " ")}</p>
    </div>
  );
}

export function AuditPage() {
  const [action, setAction] = useState("");
  const [cursors, setCursors] = useState<(number | undefined)[]>([undefined]);
  const before = cursors.at(-1);
  const events = useQuery({
    queryKey: ["audit", action, before],
    queryFn: () => {
      const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (action) params.set("action", action);
      if (before !== undefined) params.set("before", String(before));
      return api<{ events: AuditEventDto[]; nextBefore: number | null }>(`/api/v1/audit?${params}`);
    },
    placeholderData: keepPreviousData,
  });
  const verify = useMutation({
    mutationFn: () => api<Verify>("/api/v1/audit/verify"),
    onSuccess: (result) =>
      result.ok
        ? toast.success(`Audit chain intact: ${result.checked} events checked`)
        : toast.error(`Audit chain broken at event #${result.brokenAt}`),
    onError: (error) => toast.error(describeError(error)),
  });

  function onFilter(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setAction(String(new FormData(event.currentTarget).get("action") ?? "").trim());
    setCursors([undefined]);
  }

  function showBroken(id: number) {
    setAction("");
    setCursors([undefined, id + 1]);
  }

  const brokenAt = verify.data && !verify.data.ok ? verify.data.brokenAt : null;

  return (
    <div>
      <PageHeader
        title="Audit log"
        description="Every change, by whom, in the same transaction as the change. Each row carries the previous row's hash."
        actions={
          <Button variant="secondary" onClick={() => verify.mutate()} busy={verify.isPending} data-testid="verify-chain">
            <ShieldCheck className="size-4" aria-hidden /> Verify chain
          </Button>
        }
      />
      {verify.data ? (
        verify.data.ok ? (
          <div
            className="mb-4 flex items-center gap-2 rounded-md border border-ok/40 bg-ok/10 px-4 py-2.5 text-sm text-ok"
            data-testid="verify-result"
          >
            <ShieldCheck className="size-4" aria-hidden /> Chain intact: {verify.data.checked} events checked, none altered or missing.
          </div>
        ) : (
          <div
            className="mb-4 flex flex-wrap items-center gap-2 rounded-md border border-danger/40 bg-danger/10 px-4 py-2.5 text-sm text-danger"
            data-testid="verify-result"
            role="alert"
          >
            <ShieldAlert className="size-4" aria-hidden /> Chain broken at event #{verify.data.brokenAt}: that row (or the one before it)
            was altered or removed after it was written.
            {verify.data.brokenAt !== null ? (
              <Button size="sm" variant="secondary" onClick={() => showBroken(verify.data.brokenAt ?? 0)}>
                Show the row
              </Button>
            ) : null}
          </div>
        )
      ) : null}

      <Card>
        <div className="flex flex-wrap items-center justify-between gap-3 border-b border-border px-4 py-3">
          <form onSubmit={onFilter} className="flex min-w-0 max-w-full items-center gap-2">
            <Input
              name="action"
              placeholder="Action, e.g. agent or task.failed"
              defaultValue={action}
              className="w-80 min-w-0 max-w-full"
              aria-label="Filter by action"
            />
            <Button type="submit" variant="secondary" size="sm">
              Filter
            </Button>
            {action ? (
              <Button
                size="sm"
                variant="ghost"
                onClick={() => {
                  setAction("");
                  setCursors([undefined]);
                }}
              >
                Clear
              </Button>
            ) : null}
          </form>
          <div className="flex items-center gap-2">
            <Button
              size="sm"
              variant="secondary"
              disabled={cursors.length <= 1}
              onClick={() => setCursors((list) => list.slice(0, -1))}
              aria-label="Newer events"
            >
              <ChevronLeft className="size-4" aria-hidden /> Newer
            </Button>
            <Button
              size="sm"
              variant="secondary"
              disabled={!events.data?.nextBefore}
              onClick={() => events.data?.nextBefore && setCursors((list) => [...list, events.data.nextBefore ?? undefined])}
              aria-label="Older events"
            >
              Older <ChevronRight className="size-4" aria-hidden />
            </Button>
          </div>
        </div>
        {events.isPending ? (
          <Loading label="Loading events…" />
        ) : events.isError ? (
          <ErrorState error={events.error} />
        ) : events.data.events.length === 0 ? (
          <EmptyState title={action ? `No "${action}" events` : "No events yet"}>Changes appear here as they happen.</EmptyState>
        ) : (
          <div className="overflow-x-auto">
            <table className="stack-table w-full text-sm" data-testid="audit-table">
              <thead>
                <tr className="border-b border-border text-left text-xs text-fg-muted">
                  <th className="px-4 py-2 font-medium">#</th>
                  <th className="px-4 py-2 font-medium">Time</th>
                  <th className="px-4 py-2 font-medium">Actor</th>
                  <th className="px-4 py-2 font-medium">Action</th>
                  <th className="px-4 py-2 font-medium">Target</th>
                  <th className="px-4 py-2 font-medium">Details</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-border">
                {events.data.events.map((event) => (
                  <tr
                    key={event.id}
                    className={cn("align-top", event.id === brokenAt && "bg-danger/10")}
                    data-testid={event.id === brokenAt ? "audit-broken-row" : "audit-row"}
                  >
                    <td data-label="#" className="px-4 py-2 font-mono text-xs text-fg-muted">
                      {event.id}
                    </td>
                    <td data-label="Time" className="px-4 py-2 whitespace-nowrap">
                      <RelativeTime iso={event.createdAt} />
                    </td>
                    <td data-label="Actor" className="px-4 py-2">
                      <span>{event.actorLabel}</span>
                      {event.actorType === "worker" || event.actorType === "system" ? (
                        <span className="ml-1 text-xs text-fg-muted">{event.actorType}</span>
                      ) : null}
                    </td>
                    <td data-label="Action" className="px-4 py-2">
                      <Badge tone={event.id === brokenAt ? "danger" : "neutral"}>{event.action}</Badge>
                    </td>
                    <td data-label="Target" className="max-w-56 px-4 py-2 text-xs">
                      <Target event={event} />
                    </td>
                    <td data-label="Details" className="max-w-md px-4 py-2">
                      <Details event={event} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </div>
  );
}
