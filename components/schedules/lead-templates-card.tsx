"use client";

// The learning-loop templates on offer (reference 001, P11 and Gap 10): shown
// while a lead agent exists and a template is not installed yet. Each becomes an
// enabled schedule for every agent or for the lead(s).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Sparkles } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { api, describeError } from "@/lib/api-client";
import { InlineCode } from "../inline-code";

export type OfferedTemplate = {
  key: string;
  name: string;
  cron: string;
  /** A sentence or two on what it does (`code` in backticks). */
  summary: string;
  taskDescription: string;
  targetDescription: string;
  installed: boolean;
};
export type TemplateOffer = { leadExists: boolean; templates: OfferedTemplate[] };

export function useTemplateInstall(onInstalled?: () => void) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  async function install(keys: string[], label: string) {
    setBusy(label);
    try {
      const result = await api<{ schedules: unknown[] }>("/api/v1/schedules/templates", { method: "POST", body: { keys } });
      toast.success(`${result.schedules.length} schedule${result.schedules.length === 1 ? "" : "s"} added and enabled`);
      await queryClient.invalidateQueries({ queryKey: ["schedule-templates"] });
      await queryClient.invalidateQueries({ queryKey: ["schedules"] });
      onInstalled?.();
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(null);
    }
  }
  return { busy, install };
}

export function TemplateList({ templates }: { templates: OfferedTemplate[] }) {
  return (
    <ul className="divide-y divide-border">
      {templates.map((t) => (
        <li key={t.key} className="px-4 py-2.5 text-sm" data-testid="offered-template">
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-medium">{t.name}</span>
            <span className="text-xs text-fg-muted">
              <code className="font-mono">{t.cron}</code> · {t.targetDescription}
            </span>
            {t.installed ? <Badge tone="ok">added</Badge> : null}
          </div>
          <p className="mt-0.5 text-xs text-fg-muted" data-testid="template-summary">
            <InlineCode text={t.summary} />
          </p>
          <details className="mt-1 text-xs" data-testid="template-instructions">
            <summary className="cursor-pointer select-none text-fg-muted hover:text-fg">The task's full instructions</summary>
            <p className="mt-1 whitespace-pre-wrap break-words rounded-md bg-muted/60 px-3 py-2 text-fg">
              <InlineCode text={t.taskDescription} codeClassName="bg-panel" />
            </p>
          </details>
        </li>
      ))}
    </ul>
  );
}

export function LeadTemplatesCard({ onInstalled }: { onInstalled?: () => void }) {
  const offer = useQuery({
    queryKey: ["schedule-templates"],
    queryFn: () => api<TemplateOffer>("/api/v1/schedules/templates"),
  });
  const { busy, install } = useTemplateInstall(onInstalled);
  const missing = offer.data?.templates.filter((t) => !t.installed) ?? [];
  if (!offer.data?.leadExists || missing.length === 0) return null;
  return (
    <Card className="mb-4" data-testid="lead-templates">
      <CardHeader
        title={
          <span className="inline-flex items-center gap-2">
            <Sparkles className="size-4 text-accent" aria-hidden /> The lead's learning loop
          </span>
        }
        description="Retrospectives, digests and metric checks your lead can run with its swarm commands. Added schedules are enabled."
        actions={
          <Button
            size="sm"
            busy={busy === "all"}
            onClick={() =>
              install(
                missing.map((t) => t.key),
                "all",
              )
            }
            data-testid="add-templates"
          >
            Add {missing.length === offer.data.templates.length ? "all" : `the ${missing.length} missing`}
          </Button>
        }
      />
      <TemplateList templates={offer.data.templates} />
    </Card>
  );
}
