// Any /api/* path no route claims: a JSON 404 in the one error shape, whatever the
// method (Next's own answer would be its HTML 404 page).
import { publicRoute } from "@/lib/api/handler";
import { ApiError } from "@/lib/errors";

const notFound = publicRoute(async ({ req }) => {
  throw new ApiError("not_found", `There is no API at ${new URL(req.url).pathname.slice(0, 200)}`);
});

export { notFound as DELETE, notFound as GET, notFound as OPTIONS, notFound as PATCH, notFound as POST, notFound as PUT };
