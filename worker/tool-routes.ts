// The control server's /tools/* routes: what `swarm tool ...` and `swarm mcp` call.
import type { ApiClient } from "./api-client";
import { WorkerApiError } from "./api-client";
import { parseControlBody as parse } from "./control-body";
import {
  builtinArguments,
  deleteAgentTool,
  deleteToolInputSchema,
  listAgentTools,
  runAgentTool,
  runToolInputSchema,
  writeAgentTool,
  writeToolInputSchema,
} from "./tool-service";

export async function toolRoute(ctx: { api: ApiClient; taskId: string }, path: string, body: unknown): Promise<[number, unknown]> {
  switch (path) {
    case "/tools/list":
      return [200, await listAgentTools(ctx)];
    case "/tools/write": {
      const result = await writeAgentTool(ctx, parse(writeToolInputSchema, body));
      return [result.status === "applied" ? 201 : 202, result];
    }
    case "/tools/builtin-args":
      return [200, await builtinArguments(ctx, parse(runToolInputSchema, body))];
    case "/tools/run":
      return [200, await runAgentTool(ctx, parse(runToolInputSchema, body))];
    case "/tools/delete": {
      const result = await deleteAgentTool(ctx, parse(deleteToolInputSchema, body));
      return [result.status === "applied" ? 200 : 202, result];
    }
    default:
      throw new WorkerApiError(404, "not_found", `no such control route: ${path}`);
  }
}
