import { operatorRoute } from "@/lib/api/handler";
import { endSessionAs } from "@/lib/auth/operator-sessions";

// DELETE /api/v1/sessions/{id} – end a browser session at once: your own, or anyone's for an admin
export const DELETE = operatorRoute("viewer", async ({ params, principal, actor }) => {
  const viewer = { userId: principal.userId, isAdmin: principal.role === "admin", sessionId: principal.sessionId };
  await endSessionAs({ id: params.id ?? "", viewer, actor });
});
