import { StatusPanel } from "@/components/status-page";

export default function DashboardNotFound() {
  return (
    <StatusPanel code="404" title="Page not found">
      There is nothing at this address: the link may be wrong, or what it showed was removed.
    </StatusPanel>
  );
}
