import { z } from "zod";
import { operatorRoute } from "@/lib/api/handler";
import { memoryHealth } from "@/lib/memory/health";

const healthQuerySchema = z.object({ days: z.coerce.number().int().min(1).max(90).default(14) });

// GET /api/v1/memories/health – retrieval health: searches per day, embeddings vs keyword-only, failures, scores
export const GET = operatorRoute("viewer", async ({ query }) => memoryHealth(query(healthQuerySchema)));
