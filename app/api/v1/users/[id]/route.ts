import { operatorRoute } from "@/lib/api/handler";
import { updateUserBodySchema } from "@/lib/contracts/users";
import { updateUser } from "@/lib/users/users";

// PATCH /api/v1/users/{id} – change name, role, disabled or password (the last active admin stays admin);
// a new password or disabling ends the user's sessions (an admin's own current session stays)
export const PATCH = operatorRoute("admin", async ({ params, body, actor, principal }) => {
  const input = await body(updateUserBodySchema);
  const id = params.id ?? "";
  const keepSessionId = principal.userId === id ? principal.sessionId : null;
  return { user: await updateUser({ id, input, actor, keepSessionId }) };
});
