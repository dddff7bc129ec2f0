// The post-task reflection (P5): the prompt and output rules. The worker process
// running it against the real app is tests/worker-reflection.test.ts.
import { describe, expect, it } from "vitest";
import { isNothingNew, MAX_REFLECTION_CHARS, reflectionMemoryContent, reflectionMemoryName, reflectionPrompt } from "./reflection";

describe("reflection prompt and output rules", () => {
  it("asks the P5 questions in Swarmdeck's terms", () => {
    const prompt = reflectionPrompt({
      title: "fix the login",
      outcome: { status: "completed" },
      startupFile: "start-up.sh",
      home: "/ws/home",
    });
    expect(prompt).toContain('The task "fix the login" is over (it completed)');
    for (const part of [
      "`/ws/home/memory/`",
      "`/ws/home/memory/shared/`",
      "`/ws/home/TOOLS.md`",
      "swarm identity propose identity --file",
      "`/ws/home/start-up.sh`",
      "# === End agent-managed setup ===",
    ]) {
      expect(prompt).toContain(part);
    }
    expect(prompt).toContain("Only update files if there's a genuine change");
    expect(prompt).toContain("reply with exactly: No significant learnings.");
    const failed = reflectionPrompt({
      title: "x",
      outcome: { status: "failed", detail: "the agent exited with code 3:\nlots of output" },
      startupFile: "start-up.bash",
      home: "/ws/home",
    });
    expect(failed).toContain("(it failed: the agent exited with code 3:)");
    expect(failed).not.toContain("lots of output");
    expect(failed).toContain("`/ws/home/start-up.bash`");
  });

  it("keeps nothing when the answer is empty or says there was nothing new", () => {
    for (const text of [
      "",
      "  \n",
      "No significant learnings.",
      "**No significant learnings.**",
      "no significant learnings",
      "Nothing new.",
    ]) {
      expect(isNothingNew(text), text).toBe(true);
      expect(reflectionMemoryContent(text)).toBeNull();
    }
    const lesson = "- No significant learnings about the API, but the build needs NODE_OPTIONS=--max-old-space-size=4096 ".repeat(4);
    expect(isNothingNew(lesson)).toBe(false);
    expect(reflectionMemoryContent(`\n  - vitest needs --pool=forks here\n\n`)).toBe("- vitest needs --pool=forks here");
  });

  it("bounds a long answer to its end, and the name to 200 characters", () => {
    const long = `${"a".repeat(MAX_REFLECTION_CHARS)}THE END`;
    const kept = reflectionMemoryContent(long)!;
    expect(kept.endsWith("THE END")).toBe(true);
    expect(kept).toMatch(/^\[\.\.\. 7 characters cut \.\.\.\]\n/);
    expect(reflectionMemoryName("fix the login")).toBe("Reflection: fix the login");
    expect(reflectionMemoryName("t".repeat(500))).toHaveLength(200);
  });
});
