import { operatorRoute } from "@/lib/api/handler";
import { updateUserBodySchema } from "@/lib/contracts/users";
import { updateUser } from "@/lib/users/users";

// PATCH /api/v1/users/{id} – change name, role, disabled or password (the last active admin stays admin)
export const PATCH = operatorRoute("admin", async ({ params, body, actor }) => {
  const input = await body(updateUserBodySchema);
  return { user: await updateUser({ id: params.id ?? "", input, actor }) };
});
