// Pages need a signed-in operator: a signed-out visitor goes to /login with a
// callbackUrl back to where they were going. (The dashboard layout checks the user
// again against the database: a disabled account's session stops working at once.)
// API routes authenticate themselves (sessions, operator tokens, worker tokens).
import { withAuth } from "next-auth/middleware";
import { authSecret } from "@/lib/config/secrets";

export default withAuth({ secret: authSecret(), pages: { signIn: "/login" } });

export const config = {
  matcher: ["/((?!api/|_next/|monaco/|login|favicon\\.ico|icon\\.svg).*)"],
};
