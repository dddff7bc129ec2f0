import { operatorRoute } from "@/lib/api/handler";
import { idSchema } from "@/lib/contracts/common";
import { getVersionWithParent } from "@/lib/metrics/identity-metrics";

// GET /api/v1/metrics/identity/versions/{versionId} – one version and its parent's content, for the diff
export const GET = operatorRoute("viewer", async ({ params }) => getVersionWithParent({ versionId: idSchema.parse(params.versionId) }));
