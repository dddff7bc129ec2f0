import { operatorRoute } from "@/lib/api/handler";
import { previewSystemPrompt } from "@/lib/identity/prompt";

// GET /api/v1/agents/{id}/prompt – preview of the system prompt the next task would get (changes nothing)
export const GET = operatorRoute("viewer", async ({ params }) => previewSystemPrompt({ agentId: params.id ?? "" }));
