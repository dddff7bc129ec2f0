"use client";

import { ErrorPanel } from "@/components/status-page";

// Inside the app shell: the navigation stays usable around the error.
export default function DashboardError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorPanel {...props} />;
}
