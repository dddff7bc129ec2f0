// Three-way merge of identity text by lines (node-diff3): `ours` and `theirs`
// both derive from `base`. Clean when no region changed on both sides differently.
import { diff3Merge } from "node-diff3";

export type MergeOutcome = { clean: true; content: string } | { clean: false; content: string; conflicts: number };

function lines(text: string): string[] {
  return text.replace(/\r\n/g, "\n").split("\n");
}

/**
 * `ours` is the version now stored, `theirs` the incoming text. An unclean merge
 * still returns text, with git-style markers around each conflict, for a reviewer.
 */
export function mergeThreeWay({
  base,
  ours,
  theirs,
  labels,
}: {
  base: string;
  ours: string;
  theirs: string;
  labels?: { ours?: string; theirs?: string };
}): MergeOutcome {
  if (ours === theirs) return { clean: true, content: ours };
  if (base === ours) return { clean: true, content: theirs };
  if (base === theirs) return { clean: true, content: ours };
  const regions = diff3Merge(lines(ours), lines(base), lines(theirs), { excludeFalseConflicts: true });
  const out: string[] = [];
  let conflicts = 0;
  for (const region of regions) {
    if (region.ok) out.push(...region.ok);
    else if (region.conflict) {
      conflicts += 1;
      out.push(
        `<<<<<<< ${labels?.ours ?? "current"}`,
        ...region.conflict.a,
        "=======",
        ...region.conflict.b,
        `>>>>>>> ${labels?.theirs ?? "proposed"}`,
      );
    }
  }
  const content = out.join("\n");
  return conflicts === 0 ? { clean: true, content } : { clean: false, content, conflicts };
}
