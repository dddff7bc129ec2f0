import type { Metadata } from "next";
import { StandaloneStatus, StatusPanel } from "@/components/status-page";

export const metadata: Metadata = { title: "Not found" };

export default function NotFound() {
  return (
    <StandaloneStatus>
      <StatusPanel code="404" title="Page not found">
        There is nothing at this address: the link may be wrong or out of date.
      </StatusPanel>
    </StandaloneStatus>
  );
}
