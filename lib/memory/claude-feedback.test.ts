import { describe, expect, it } from "vitest";
import { withFeedbackLine } from "./claude-feedback";

describe("withFeedbackLine", () => {
  it("creates the section at the end when CLAUDE.md has none", () => {
    expect(withFeedbackLine("# Notes\n\n- keep it short\n", "(preference) small PRs")).toBe(
      "# Notes\n\n- keep it short\n\n## Feedback from Lead\n\n- (preference) small PRs\n",
    );
    expect(withFeedbackLine("", "x")).toBe("## Feedback from Lead\n\n- x\n");
  });

  it("appends under the existing section, before the next heading, on one line", () => {
    const before = "# Me\n\n## Feedback from Lead\n\n- first\n\n## Preferences\n\n- tabs\n";
    expect(withFeedbackLine(before, "second\nline")).toBe(
      "# Me\n\n## Feedback from Lead\n\n- first\n- second line\n\n## Preferences\n\n- tabs\n",
    );
  });
});
