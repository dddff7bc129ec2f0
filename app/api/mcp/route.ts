import { operatorRoute } from "@/lib/api/handler";
import { ApiError } from "@/lib/errors";
import { handleOperatorMcp } from "@/lib/mcp/operator-mcp";

// POST /api/mcp – read access to the swarm for MCP clients (Streamable HTTP, stateless, JSON answers),
// with an operator API token (`Authorization: Bearer sdo_…`; any role). Tools: lib/mcp/operator-mcp.ts.
export const POST = operatorRoute("viewer", async ({ req, principal }) => {
  if (principal.kind !== "api_token") {
    throw new ApiError("forbidden", "The MCP endpoint takes an operator API token (Settings → API tokens), not a browser session");
  }
  // Served by Next (never by the fast path), so this is a whole Request with its body stream.
  if (!(req instanceof Request)) throw new Error("the MCP endpoint needs a standard Request");
  return handleOperatorMcp(req);
});

// Stateless: no server-to-client stream to open and no session to end.
const notAllowed = operatorRoute("viewer", async () => {
  throw new ApiError("method_not_allowed", "This MCP endpoint is stateless: send JSON-RPC requests with POST");
});
export const GET = notAllowed;
export const DELETE = notAllowed;
