"use client";

// The agent page's sections: its identity files, and the tools it wrote for itself.
// The tab is in the URL (?tab=tools) so a link can open it.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import type { ReactNode } from "react";
import { cn } from "../ui/cn";

const TABS = [
  { id: "identity", label: "Identity" },
  { id: "tools", label: "Tools" },
] as const;

export function AgentTabs({ identity, tools }: { identity: ReactNode; tools: ReactNode }) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const active = params.get("tab") === "tools" ? "tools" : "identity";
  return (
    <div className="space-y-4">
      <div role="tablist" aria-label="Agent sections" className="flex gap-4 border-b border-border">
        {TABS.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            aria-selected={tab.id === active}
            data-testid={`agent-tab-${tab.id}`}
            onClick={() => router.replace(tab.id === "identity" ? pathname : `${pathname}?tab=${tab.id}`, { scroll: false })}
            className={cn(
              "-mb-px border-b-2 px-1 pb-2 text-sm",
              tab.id === active ? "border-accent font-medium text-fg" : "border-transparent text-fg-muted hover:text-fg",
            )}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel">{active === "tools" ? tools : identity}</div>
    </div>
  );
}
