"use client";

// Signed-in browser sessions: your own (every user's for an admin), each ended at
// once with one click. Ending the session you are using signs you out.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import type { OperatorSessionDto } from "@/lib/contracts/sessions";
import { RelativeTime } from "../relative-time";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { EmptyState, ErrorState, Loading } from "../ui/states";

/** "Chrome on Linux" from a user-agent string: enough to recognise one's own devices. */
function describeDevice(userAgent: string): string {
  if (!userAgent) return "Unknown device";
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : userAgent.split(/[\s/]/)[0] || "Browser";
  const os = /Windows/.test(userAgent)
    ? "Windows"
    : /Android/.test(userAgent)
      ? "Android"
      : /iPhone|iPad/.test(userAgent)
        ? "iOS"
        : /Mac OS X/.test(userAgent)
          ? "macOS"
          : /Linux/.test(userAgent)
            ? "Linux"
            : "";
  return os ? `${browser} on ${os}` : browser;
}

export function SessionsCard() {
  const can = useCan();
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: ["sessions"],
    queryFn: () => api<{ sessions: OperatorSessionDto[] }>("/api/v1/sessions"),
  });
  const end = useMutation({
    mutationFn: (session: OperatorSessionDto) => api(`/api/v1/sessions/${session.id}`, { method: "DELETE" }),
    onSuccess: async (_, session) => {
      if (session.current) {
        await signOut({ callbackUrl: "/login" });
        return;
      }
      toast.success(`Ended a session of ${session.user.email}`);
      await queryClient.invalidateQueries({ queryKey: ["sessions"] });
    },
    onError: (error) => toast.error(describeError(error)),
  });

  return (
    <Card>
      <CardHeader
        title="Signed-in sessions"
        description={
          can.admin
            ? "Every browser signed in to Swarmdeck. Ending one signs that browser out at once. A new password ends all of a user's sessions."
            : "Browsers signed in to your account. Ending one signs that browser out at once."
        }
      />
      {sessions.isPending ? (
        <Loading />
      ) : sessions.isError ? (
        <ErrorState error={sessions.error} />
      ) : sessions.data.sessions.length === 0 ? (
        <EmptyState title="No sessions" />
      ) : (
        <div className="overflow-x-auto">
          <table className="stack-table w-full text-sm" data-testid="sessions-table">
            <thead>
              <tr className="border-b border-border text-left text-xs text-fg-muted">
                {can.admin ? <th className="px-4 py-2 font-medium">User</th> : null}
                <th className="px-4 py-2 font-medium">Device</th>
                <th className="px-4 py-2 font-medium">Address</th>
                <th className="px-4 py-2 font-medium">Signed in</th>
                <th className="px-4 py-2 font-medium">Last active</th>
                <th className="px-4 py-2" />
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {sessions.data.sessions.map((session) => (
                <tr key={session.id} data-testid="session-row">
                  {can.admin ? (
                    <td data-label="User" className="px-4 py-2">
                      {session.user.email}
                    </td>
                  ) : null}
                  <td data-label="Device" className="px-4 py-2" title={session.userAgent}>
                    {describeDevice(session.userAgent)} {session.current ? <Badge tone="ok">this browser</Badge> : null}
                  </td>
                  <td data-label="Address" className="px-4 py-2 font-mono text-xs">
                    {session.address || "—"}
                  </td>
                  <td data-label="Signed in" className="px-4 py-2">
                    <RelativeTime iso={session.createdAt} />
                  </td>
                  <td data-label="Last active" className="px-4 py-2">
                    <RelativeTime iso={session.lastSeenAt} />
                  </td>
                  <td data-actions className="px-4 py-2 text-right">
                    <Button
                      size="sm"
                      variant="ghost"
                      busy={end.isPending && end.variables?.id === session.id}
                      onClick={() => end.mutate(session)}
                    >
                      {session.current ? "Sign out" : "End"}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
