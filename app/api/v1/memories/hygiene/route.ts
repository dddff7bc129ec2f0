import { operatorRoute } from "@/lib/api/handler";
import { runHygiene } from "@/lib/memory/hygiene";

// POST /api/v1/memories/hygiene – run memory hygiene now (expiry, near-duplicates, summary budget)
export const POST = operatorRoute("admin", async () => ({ report: await runHygiene() }));
