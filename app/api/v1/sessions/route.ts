import { operatorRoute } from "@/lib/api/handler";
import { listSessions } from "@/lib/auth/operator-sessions";

// GET /api/v1/sessions – live browser sessions: your own, or every user's for an admin
export const GET = operatorRoute("viewer", async ({ principal }) => ({
  sessions: await listSessions({ userId: principal.userId, isAdmin: principal.role === "admin", sessionId: principal.sessionId }),
}));
