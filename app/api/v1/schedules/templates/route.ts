import { operatorRoute } from "@/lib/api/handler";
import { SCHEDULE_TEMPLATES } from "@/lib/schedules/templates";

// GET /api/v1/schedules/templates – the shipped templates (weekly retrospective, daily digest, weekly metrics check)
export const GET = operatorRoute("viewer", async () => ({ templates: SCHEDULE_TEMPLATES }));
