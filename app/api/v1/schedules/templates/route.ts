import { created, operatorRoute } from "@/lib/api/handler";
import { installTemplatesBodySchema } from "@/lib/contracts/schedules";
import { installTemplates, templateOffer } from "@/lib/schedules/lead-templates";

// GET /api/v1/schedules/templates – the learning-loop templates (weekly retrospective for every agent; daily digest, weekly metrics check and monthly review for the lead), whether each is installed, and whether a lead exists
export const GET = operatorRoute("viewer", async () => templateOffer());

// POST /api/v1/schedules/templates {keys, enabled?} – install templates as schedules (enabled unless `enabled: false`); needs a lead agent
export const POST = operatorRoute("operator", async ({ body, actor }) => {
  const input = await body(installTemplatesBodySchema);
  return created(await installTemplates({ ...input, actor }));
});
