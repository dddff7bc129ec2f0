// Small helpers the identity routes share: the kind from a URL segment (strictly
// one of the ten slugs, 404 for anything else) and who an operator is as an author.
import "server-only";
import type { OperatorPrincipal } from "@/lib/auth/principal";
import { type IdentityKind, slugToKind } from "@/lib/contracts/identity";
import { notFound } from "@/lib/errors";
import type { Author } from "./versions";

export function kindParam(slug: string | undefined): IdentityKind {
  const kind = slugToKind(slug ?? "");
  if (!kind) throw notFound("Identity file kind");
  return kind;
}

export function operatorAuthor(principal: OperatorPrincipal): Author {
  return { type: "operator", id: principal.userId };
}
