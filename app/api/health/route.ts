import { publicRoute } from "@/lib/api/handler";
import { databaseTarget } from "@/lib/config/database-url";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { pgSql } from "@/lib/pg";

export const dynamic = "force-dynamic";

// GET /api/health – liveness, a database round trip, and which kind of database it is
export const GET = publicRoute(async () => {
  try {
    if (usesPostgres()) await pgSql().get("SELECT 1 AS ok");
    else await withSqlite((sqlite) => prepare(sqlite, "SELECT 1 AS ok").get());
    return { ok: true, db: "ok", database: databaseTarget().kind };
  } catch (error) {
    console.error("[swarmdeck] health check: database unavailable", error);
    return Response.json({ ok: false, db: "unavailable", database: databaseTarget().kind }, { status: 503 });
  }
});
