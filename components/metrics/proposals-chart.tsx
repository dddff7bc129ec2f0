"use client";

// Proposal decisions over time: approved as proposed, approved with edits, rejected.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { AXIS, ChartFrame, OUTCOME_COLORS, shortDay, TOOLTIP_STYLE } from "./chart-kit";
import type { ProposalDecisions } from "./types";

export function ProposalsChart({ data, isPending, error }: { data?: ProposalDecisions; isPending: boolean; error: unknown }) {
  const t = data?.totals;
  const decided = t ? t.approved + t.edited + t.rejected : 0;
  return (
    <Card data-testid="chart-proposals">
      <CardHeader
        title="Proposal decisions"
        description={
          t
            ? `${t.approved} approved · ${t.edited} approved with edits · ${t.rejected} rejected · ${t.pending} waiting`
            : "Identity proposals decided per day."
        }
      />
      {isPending ? (
        <Loading />
      ) : error ? (
        <ErrorState error={error} />
      ) : decided === 0 ? (
        <EmptyState title="No proposals decided in this range">
          When agents propose changes to their identity files and an operator approves, edits or rejects them, the decisions appear here.
        </EmptyState>
      ) : (
        <ChartFrame height={200}>
          <ResponsiveContainer>
            <BarChart data={data?.series} margin={{ left: 4, right: 16 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="day" tickFormatter={shortDay} {...AXIS} />
              <YAxis allowDecimals={false} width={32} {...AXIS} />
              <Tooltip {...TOOLTIP_STYLE} cursor={{ fill: "var(--muted)" }} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              <Bar dataKey="approved" stackId="p" fill={OUTCOME_COLORS.approved} isAnimationActive={false} />
              <Bar dataKey="edited" name="approved with edits" stackId="p" fill={OUTCOME_COLORS.edited} isAnimationActive={false} />
              <Bar dataKey="rejected" stackId="p" fill={OUTCOME_COLORS.rejected} isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </ChartFrame>
      )}
    </Card>
  );
}
