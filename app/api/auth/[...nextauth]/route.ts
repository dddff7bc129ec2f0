// GET|POST /api/auth/* – next-auth (sign-in, sign-out, session, CSRF token), sign-in throttled
export { GET, POST } from "@/lib/auth/auth-route";
