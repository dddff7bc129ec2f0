"use client";

import { StandaloneStatus, StatusPanel } from "@/components/status-page";
import { Button } from "@/components/ui/button";

export default function AppError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <StandaloneStatus>
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
    </StandaloneStatus>
  );
}
