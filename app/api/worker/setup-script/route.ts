import { setupScriptForWorker } from "@/lib/agents/setup-status";
import { workerRoute } from "@/lib/api/handler";

// GET /api/worker/setup-script – the composed setup script and its hash (the worker re-runs it when the hash changes)
export const GET = workerRoute(async ({ principal }) => setupScriptForWorker({ principal }));
