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
  Menu,
  Moon,
  ScrollText,
  Settings,
  Sun,
  X,
} from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { useTheme } from "next-themes";
import { type ReactNode, useEffect, useState } from "react";
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
    queryFn: () => api<{ total: number }>("/api/v1/proposals/count?status=open"),
    refetchInterval: 15_000,
    retry: false,
  });
}

// The server cannot know the theme (it lives in localStorage or the system
// setting), so nothing rendered may depend on it before hydration: the label is
// neutral and the icon is picked by CSS from the `dark` class next-themes sets.
function ThemeToggle() {
  const { resolvedTheme, setTheme } = useTheme();
  return (
    <button
      type="button"
      onClick={() => setTheme(resolvedTheme === "dark" ? "light" : "dark")}
      className="rounded-md p-2 text-fg-muted hover:bg-muted hover:text-fg"
      aria-label="Switch between light and dark theme"
      title="Switch between light and dark theme"
      data-testid="theme-toggle"
    >
      <Sun className="hidden size-4 dark:block" aria-hidden />
      <Moon className="size-4 dark:hidden" aria-hidden />
    </button>
  );
}

export function AppShell({ user, children }: { user: ClientUser; children: ReactNode }) {
  const pathname = usePathname();
  const pending = usePendingProposals();
  // Below the lg breakpoint the sidebar is a drawer behind a menu button.
  const [menuOpen, setMenuOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: close the drawer whenever the page changes
  useEffect(() => setMenuOpen(false), [pathname]);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setMenuOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [menuOpen]);
  return (
    <SessionUserProvider user={user}>
      <header className="sticky top-0 z-30 flex items-center gap-2 border-b border-border bg-panel px-3 py-2 lg:hidden">
        <button
          type="button"
          onClick={() => setMenuOpen(true)}
          className="rounded-md p-2 text-fg-muted hover:bg-muted hover:text-fg"
          aria-label="Open the menu"
          aria-expanded={menuOpen}
          aria-controls="main-sidebar"
          data-testid="menu-button"
        >
          <Menu className="size-5" aria-hidden />
        </button>
        <div className="grid size-6 place-items-center rounded-md bg-accent text-xs font-bold text-accent-fg">S</div>
        <span className="font-semibold tracking-tight">Swarmdeck</span>
      </header>
      {menuOpen ? (
        <button
          type="button"
          aria-label="Close the menu"
          tabIndex={-1}
          className="fixed inset-0 z-40 bg-black/40 lg:hidden"
          onClick={() => setMenuOpen(false)}
        />
      ) : null}
      <div className="flex min-h-screen">
        <aside
          id="main-sidebar"
          className={cn(
            "fixed inset-y-0 left-0 z-50 flex h-dvh w-64 shrink-0 flex-col border-r border-border bg-panel transition-transform lg:sticky lg:top-0 lg:z-20 lg:h-screen lg:w-56 lg:translate-x-0",
            menuOpen ? "translate-x-0 shadow-xl" : "invisible -translate-x-full lg:visible",
          )}
          data-testid="sidebar"
        >
          <div className="flex items-center gap-2 px-4 py-4">
            <div className="grid size-7 place-items-center rounded-md bg-accent text-sm font-bold text-accent-fg">S</div>
            <span className="flex-1 font-semibold tracking-tight">Swarmdeck</span>
            <button
              type="button"
              onClick={() => setMenuOpen(false)}
              className="rounded-md p-1.5 text-fg-muted hover:bg-muted hover:text-fg lg:hidden"
              aria-label="Close the menu"
            >
              <X className="size-4" aria-hidden />
            </button>
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
        <main className="min-w-0 flex-1 px-3 py-4 sm:px-6 lg:px-8 lg:py-6">{children}</main>
      </div>
    </SessionUserProvider>
  );
}
