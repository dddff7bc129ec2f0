"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ThemeProvider, useTheme } from "next-themes";
import { type ReactNode, useState } from "react";
import { Toaster } from "sonner";

/**
 * Toasts in the app's theme (the stored choice or the system's), not sonner's default light.
 * They stack at the bottom right (full width at the bottom on a phone), away from the page
 * headers where every page keeps its actions: a toast over a header button would take the
 * click meant for it, and hovering a toast pauses its timer, so it would stay there.
 */
function ThemedToaster() {
  const { resolvedTheme } = useTheme();
  return <Toaster richColors closeButton position="bottom-right" theme={resolvedTheme === "dark" ? "dark" : "light"} />;
}

export function Providers({ children, nonce }: { children: ReactNode; nonce?: string }) {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: 1, refetchOnWindowFocus: true } } }),
  );
  return (
    <ThemeProvider attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange nonce={nonce}>
      <QueryClientProvider client={queryClient}>
        {children}
        <ThemedToaster />
      </QueryClientProvider>
    </ThemeProvider>
  );
}
