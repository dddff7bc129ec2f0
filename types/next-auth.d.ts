import "next-auth";

declare module "next-auth" {
  interface Session {
    user: { id: string; role: string; name?: string | null; email?: string | null; image?: string | null };
    /** The OperatorSession this cookie names ("" for a cookie from before sessions were recorded). */
    sessionId: string;
  }
}
