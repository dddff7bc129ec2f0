import { StatusPanel } from "@/components/status-page";

export default function TaskNotFound() {
  return (
    <StatusPanel code="404" title="No such task" href="/tasks" linkLabel="All tasks" linkTestId="back-to-tasks">
      There is no task at this address: the link may be wrong, or it was never created here.
    </StatusPanel>
  );
}
