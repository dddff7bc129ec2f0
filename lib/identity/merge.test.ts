import { describe, expect, it } from "vitest";
import { mergeThreeWay } from "./merge";

const base = "# Soul\n\n## Values\n- craft\n- honesty\n\n## Style\n- short answers\n";

describe("mergeThreeWay", () => {
  it("merges changes to different sections cleanly", () => {
    const ours = base.replace("- craft", "- craft\n- patience");
    const theirs = base.replace("- short answers", "- short answers first");
    const result = mergeThreeWay({ base, ours, theirs });
    expect(result).toEqual({
      clean: true,
      content: base.replace("- craft", "- craft\n- patience").replace("- short answers", "- short answers first"),
    });
  });

  it("reports overlapping edits as a conflict with markers around both sides", () => {
    const ours = base.replace("- honesty", "- candour");
    const theirs = base.replace("- honesty", "- truthfulness");
    const result = mergeThreeWay({ base, ours, theirs, labels: { ours: "current", theirs: "proposed" } });
    expect(result.clean).toBe(false);
    expect(result.content).toContain("<<<<<<< current\n- candour\n=======\n- truthfulness\n>>>>>>> proposed");
    expect(result.clean === false && result.conflicts).toBe(1);
  });

  it("takes the only changed side when the other equals the base", () => {
    expect(mergeThreeWay({ base, ours: base, theirs: "new" })).toEqual({ clean: true, content: "new" });
    expect(mergeThreeWay({ base, ours: "moved", theirs: base })).toEqual({ clean: true, content: "moved" });
  });

  it("treats the same change on both sides as clean", () => {
    const both = base.replace("- honesty", "- candour");
    expect(mergeThreeWay({ base, ours: both, theirs: both })).toEqual({ clean: true, content: both });
  });

  it("handles CRLF text as lines", () => {
    const crlfBase = base.replace(/\n/g, "\r\n");
    const result = mergeThreeWay({
      base: crlfBase,
      ours: base.replace("- craft", "- care"),
      theirs: base.replace("- short answers", "- brief"),
    });
    expect(result.clean).toBe(true);
    expect(result.content).toContain("- care");
    expect(result.content).toContain("- brief");
  });
});
