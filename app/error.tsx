"use client";

import { ErrorPanel, StandaloneStatus } from "@/components/status-page";

export default function AppError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <StandaloneStatus>
      <ErrorPanel {...props} />
    </StandaloneStatus>
  );
}
