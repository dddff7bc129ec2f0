import { publicRoute } from "@/lib/api/handler";
import { prepare, withSqlite } from "@/lib/db";

export const dynamic = "force-dynamic";

// GET /api/health – liveness and a database round trip
export const GET = publicRoute(async () => {
  try {
    await withSqlite((sqlite) => prepare(sqlite, "SELECT 1 AS ok").get());
    return { ok: true, db: "ok" };
  } catch (error) {
    console.error("[swarmdeck] health check: database unavailable", error);
    return Response.json({ ok: false, db: "unavailable" }, { status: 503 });
  }
});
