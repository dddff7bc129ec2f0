"use client";

import { useQuery } from "@tanstack/react-query";
import {
  Activity,
  Bot,
  Brain,
  CalendarClock,
  GitPullRequest,
  LayoutDashboard,
  ListTodo,
  LogOut,
  Moon,
  ScrollText,
  Settings,
  Sun,
} from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { useTheme } from "next-themes";
import type { ReactNode } from "react";
import { api } from "@/lib/api-client";
import { type ClientUser, SessionUserProvider } from "./session-user";
import { cn } from "./ui/cn";

const NAV = [
  { href: "/", label: "Dashboard", icon: LayoutDashboard, exact: true },
  { href: "/agents", label: "Agents", icon: Bot },
  { href: "/proposals", label: "Proposals", icon: GitPullRequest, badge: "proposals" as const },
  { href: "/tasks", label: "Tasks", icon: ListTodo },
  { href: "/memory", label: "Memory", icon: Brain },
  { href: "/metrics", label: "Metrics", icon: Activity },
  { href: "/schedules", label: "Schedules", icon: CalendarClock },
  { href: "/settings", label: "Settings", icon: Settings },
  { href: "/audit", label: "Audit", icon: ScrollText },
];

function usePendingProposals() {
  return useQuery({
    queryKey: ["proposals", "pending-count"],
    queryFn: () => api<{ total: number }>("/api/v1/proposals/count?status=pending"),
    refetchInterval: 15_000,
    retry: false,
  });
}

function ThemeToggle() {
  const { resolvedTheme, setTheme } = useTheme();
  const dark = resolvedTheme === "dark";
  return (
    <button
      type="button"
      onClick={() => setTheme(dark ? "light" : "dark")}
      className="rounded-md p-2 text-fg-muted hover:bg-muted hover:text-fg"
      aria-label={dark ? "Switch to light theme" : "Switch to dark theme"}
      data-testid="theme-toggle"
    >
      {dark ? <Sun className="size-4" /> : <Moon className="size-4" />}
    </button>
  );
}

export function AppShell({ user, children }: { user: ClientUser; children: ReactNode }) {
  const pathname = usePathname();
  const pending = usePendingProposals();
  return (
    <SessionUserProvider user={user}>
      <div className="flex min-h-screen">
        <aside className="sticky top-0 flex h-screen w-56 shrink-0 flex-col border-r border-border bg-panel">
          <div className="flex items-center gap-2 px-4 py-4">
            <div className="grid size-7 place-items-center rounded-md bg-accent text-sm font-bold text-accent-fg">S</div>
            <span className="font-semibold tracking-tight">Swarmdeck</span>
          </div>
          <nav className="flex-1 space-y-0.5 px-2" aria-label="Main">
            {NAV.map((item) => {
              const active = item.exact ? pathname === item.href : pathname === item.href || pathname.startsWith(`${item.href}/`);
              const count = item.badge === "proposals" ? (pending.data?.total ?? 0) : 0;
              return (
                <Link
                  key={item.href}
                  href={item.href}
                  className={cn(
                    "flex items-center gap-2.5 rounded-md px-2.5 py-1.5 text-sm",
                    active ? "bg-muted font-medium text-fg" : "text-fg-muted hover:bg-muted hover:text-fg",
                  )}
                  aria-current={active ? "page" : undefined}
                >
                  <item.icon className="size-4" aria-hidden />
                  <span className="flex-1">{item.label}</span>
                  {count > 0 ? (
                    <span
                      className="rounded-full bg-accent px-1.5 text-xs font-semibold text-accent-fg"
                      data-testid="proposals-badge"
                      title={`${count} pending`}
                    >
                      {count}
                    </span>
                  ) : null}
                </Link>
              );
            })}
          </nav>
          <div className="border-t border-border p-3">
            <div className="flex items-center justify-between gap-2">
              <div className="min-w-0">
                <p className="truncate text-sm font-medium" data-testid="current-user">
                  {user.email}
                </p>
                <p className="text-xs text-fg-muted capitalize">{user.role}</p>
              </div>
              <ThemeToggle />
            </div>
            <button
              type="button"
              onClick={() => signOut({ callbackUrl: "/login" })}
              className="mt-2 flex w-full items-center gap-2 rounded-md px-2 py-1.5 text-sm text-fg-muted hover:bg-muted hover:text-fg"
            >
              <LogOut className="size-4" aria-hidden /> Sign out
            </button>
          </div>
        </aside>
        <main className="min-w-0 flex-1 px-8 py-6">{children}</main>
      </div>
    </SessionUserProvider>
  );
}
