import { created, operatorRoute } from "@/lib/api/handler";
import { createUserBodySchema } from "@/lib/contracts/users";
import { createUser, listUsers } from "@/lib/users/users";

// GET /api/v1/users – every operator account
export const GET = operatorRoute("admin", async () => ({ users: await listUsers() }));

// POST /api/v1/users – a new operator account
export const POST = operatorRoute("admin", async ({ body, actor }) => {
  const input = await body(createUserBodySchema);
  return created({ user: await createUser({ input, actor }) });
});
