// Ranking that reads details: what an agent notices when the near-miss comes back
// instead of the lesson that names its environment, tool, version or error code.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureSemanticData } from "../../scripts/launch";
import { isDetail, prepareQuery, relevance } from "./rerank";

beforeAll(() => ensureSemanticData(() => {}), 300_000);

const score = (query: string, memory: { name: string; content: string }, semantic = true) =>
  relevance(prepareQuery(query, { semantic }), memory.name, memory.content);

describe("relevance", () => {
  const node18 = {
    name: "Build agent on Node 18 rejects the install",
    content: "npm install stopped with EBADENGINE on the old build agent running Node 18. Upgrade the agent.",
  };
  const node22 = {
    name: "Build agent on Node 22 rejects the install",
    content: "npm install stopped with a peer dependency error on the new build agent running Node 22. Pin the plugin.",
  };

  it("lets the version the query names decide between two lessons on the same topic", () => {
    expect(score("install fails on the build agent with node 22", node22)).toBeGreaterThan(
      score("install fails on the build agent with node 22", node18),
    );
    expect(score("install fails on the build agent with node 18", node18)).toBeGreaterThan(
      score("install fails on the build agent with node 18", node22),
    );
  });

  it("lets an error code decide, and weighs it above common words", () => {
    expect(score("EBADENGINE during install", node18)).toBeGreaterThan(score("EBADENGINE during install", node22) + 0.2);
  });

  it("lets the environment decide: the runner's lesson over the laptop's", () => {
    const runner = {
      name: "Fonts missing on the CI runner",
      content: "Rendering differed because the runner image lacks the fonts; install them in the image.",
    };
    const laptop = {
      name: "Fonts missing on a new laptop",
      content: "Rendering differed on a fresh laptop until the fonts were installed from the team's share.",
    };
    const query = "text renders differently on the ci runner";
    expect(score(query, runner)).toBeGreaterThan(score(query, laptop));
  });

  it("counts a word in the name more than the same word only in the content", () => {
    const inName = { name: "Webhook retries", content: "Providers deliver at least once; store delivery ids." };
    const inContent = { name: "Delivery notes", content: "Webhook providers deliver at least once; store ids." };
    expect(score("webhook", inName)).toBeGreaterThan(score("webhook", inContent));
  });

  it("gives a paraphrase credit through related words, and none without the embedded data", () => {
    const lesson = { name: "Pipeline secrets empty for forks", content: "Workflows triggered from forks get no credentials." };
    const query = "build server has no tokens when outside contributors open changes";
    expect(score(query, lesson, true)).toBeGreaterThan(0.3);
    expect(score(query, lesson, false)).toBe(0);
  });

  it("stays within 0..1 and gives nothing to an unrelated memory", () => {
    const lesson = { name: "Pipeline secrets empty for forks", content: "Workflows triggered from forks get no credentials." };
    for (const query of ["", "   ", "forks forks forks", "a good recipe for banana bread with walnuts", "x".repeat(5000)]) {
      const value = score(query, lesson);
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
    expect(score("a good recipe for banana bread with walnuts", lesson)).toBeLessThan(0.2);
  });
});

describe("details", () => {
  it("recognises versions, error codes and identifiers, not plain words", () => {
    for (const token of ["1.22", "ENOSPC", "max_connections", "node20", "eu-central-1"]) expect(isDetail(token)).toBe(true);
    for (const token of ["cache", "Docker", "timeout"]) expect(isDetail(token)).toBe(false);
  });
});
