"use client";

import { StatusPanel } from "@/components/status-page";
import { Button } from "@/components/ui/button";

// Inside the app shell: the navigation stays usable around the error.
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <StatusPanel
      code="Error"
      title="Something went wrong"
      actions={
        <Button variant="secondary" onClick={reset}>
          Try again
        </Button>
      }
    >
      This page failed to load.{error.digest ? ` (reference ${error.digest})` : ""}
    </StatusPanel>
  );
}
