// The Tools tab in real Chromium: an agent's tool with its read-only source in
// Monaco, the test it passed, its versions and a diff, calls and failures; an
// operator disables, re-enables and deletes it, and the worker sees each change; a
// change to a built-in shows its branch, commit and test result.
import { newAgent, workerToken } from "./identity-support";
import { apiCall, expect, signIn, test } from "./support/fixtures";

test.describe.configure({ timeout: 120_000 });

const source = (suffix: string) => `import { z } from "zod";
export default {
  name: "shout",
  description: "Upper-cases a text",
  inputSchema: z.object({ text: z.string() }),
  async execute({ text }: { text: string }) {
    return { shouted: text.toUpperCase() + "${suffix}" };
  },
};`;

function toolBody(suffix: string, reason: string) {
  return {
    name: "shout",
    description: "Upper-cases a text",
    source: source(suffix),
    compiledCode: "export const tool = {};",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    testInput: { text: "hi" },
    testOutput: { shouted: `HI${suffix}` },
    testDurationMs: 350,
    reason,
  };
}

test("an agent's tool: source, test, versions and diff, calls; disable, enable, delete", async ({ page }) => {
  const agent = await newAgent();
  const token = workerToken(agent.id);
  const asWorker = (method: string, path: string, body?: unknown) => apiCall(method, path, body, token);
  expect((await asWorker("POST", "/api/worker/tools", toolBody("", "I shout a lot"))).status).toBe(201);
  expect((await asWorker("POST", "/api/worker/tools", toolBody("!", "louder"))).status).toBe(201);
  await asWorker("POST", "/api/worker/tools/shout/calls", { ok: true, durationMs: 300 });
  await asWorker("POST", "/api/worker/tools/shout/calls", { ok: false, durationMs: 20, error: "invalid_input: text: expected string" });
  const registered = async () =>
    ((await asWorker("GET", "/api/worker/tools")).body as { tools: { name: string }[] }).tools.map((t) => t.name);

  const builtin = await asWorker("POST", "/api/worker/builtin-tools", {
    name: "memory_search",
    testInput: { query: "x" },
    reason: "three results",
    source: `import { z } from "zod";
export default { name: "memory_search", description: "Search, three results", inputSchema: z.object({ query: z.string() }),
  async execute({ query }: { query: string }) { return { query, limit: 3 }; } };`,
  });
  expect(builtin.status).toBe(201);
  const { branch, commit } = builtin.body as { branch: string; commit: string };

  await signIn(page);
  await page.goto(`/agents/${agent.id}`);
  await page.getByTestId("agent-tab-tools").click();
  await expect(page).toHaveURL(/\?tab=tools$/);
  const row = page.getByTestId("tool-row-shout");
  await expect(row).toContainText("v2");
  await expect(row).toContainText("2 calls · 1 failed");

  const detail = page.getByTestId("tool-detail");
  await expect(detail.getByTestId("tool-state")).toHaveText("enabled");
  await expect(detail).toContainText("invalid_input: text: expected string");
  await expect(detail.locator("[data-testid=tool-source] .monaco-editor")).toBeVisible({ timeout: 30_000 });
  await expect(detail.locator("[data-testid=tool-source] .view-lines")).toContainText('text.toUpperCase() + "!"');
  await expect(detail.getByTestId("tool-test-output")).toContainText('"shouted": "HI!"');
  await expect(detail.getByTestId("tool-version-2")).toContainText("louder");
  const merged = page.getByTestId("builtin-change-merged");
  await expect(merged).toContainText("memory_search");
  await expect(merged).toContainText(branch);
  await expect(merged).toContainText(commit.slice(0, 12));
  await expect(merged).toContainText('"limit":3');

  await detail.getByTestId("tool-compare-2").click();
  const diff = page.getByTestId("tool-diff");
  await expect(diff.locator(".monaco-diff-editor")).toBeVisible({ timeout: 30_000 });
  await expect(diff.locator(".editor.modified")).toContainText('"!"');
  await page.keyboard.press("Escape");

  await detail.getByTestId("tool-toggle").click();
  await expect(detail.getByTestId("tool-state")).toHaveText("disabled");
  await expect(row).toContainText("disabled");
  expect(await registered()).toEqual([]);
  await detail.getByTestId("tool-toggle").click();
  await expect(detail.getByTestId("tool-state")).toHaveText("enabled");
  expect(await registered()).toEqual(["shout"]);

  await detail.getByTestId("tool-delete").click();
  await page.getByRole("button", { name: "Delete tool" }).click();
  await expect(detail.getByTestId("tool-state")).toHaveText("deleted");
  await expect(row).toContainText("deleted");
  expect(await registered()).toEqual([]);
  await expect(detail.getByTestId("tool-version-3")).toContainText("delete applied");
});

test("an agent without tools says how they come", async ({ page }) => {
  const agent = await newAgent();
  await signIn(page);
  await page.goto(`/agents/${agent.id}?tab=tools`);
  const empty = page.getByRole("tabpanel").getByTestId("empty-state");
  await expect(empty).toContainText("No tools yet");
  await expect(empty).toContainText("swarm tool write");
});

test("a paranoid agent's change to a built-in waits on the Tools tab; the operator reads it, rejects one and approves another", async ({
  page,
}) => {
  const agent = await newAgent({ securityProfile: "paranoid" });
  const token = workerToken(agent.id);
  const propose = async (limit: number, reason: string) => {
    const reply = await apiCall(
      "POST",
      "/api/worker/builtin-tools",
      {
        name: "memory_search",
        testInput: { query: "x" },
        reason,
        source: `import { z } from "zod";
export default { name: "memory_search", description: "Search, ${limit} results", inputSchema: z.object({ query: z.string() }),
  async execute({ query }: { query: string }) { return { query, limit: ${limit} }; } };`,
      },
      token,
    );
    expect(reply.status).toBe(202);
  };
  await propose(2, "two are enough");

  await signIn(page);
  await page.goto(`/agents/${agent.id}?tab=tools`);
  const waiting = page.getByTestId("builtin-change-proposed");
  await expect(waiting).toContainText("waiting for review");
  await expect(waiting).toContainText("two are enough");
  await waiting.getByRole("button", { name: "Source" }).click();
  await expect(page.locator("[data-testid=builtin-change-source] .view-lines")).toContainText("limit: 2", { timeout: 30_000 });
  await page.keyboard.press("Escape");

  await waiting.getByRole("button", { name: "Reject" }).click();
  await page.getByLabel("Note for the agent (optional)").fill("keep five");
  await page.getByTestId("builtin-reject").click();
  const rejected = page.getByTestId("builtin-change-rejected");
  await expect(rejected).toContainText("keep five");
  await expect(waiting).toHaveCount(0);

  await propose(3, "three then");
  await page.reload();
  await page.getByTestId("builtin-change-proposed").getByRole("button", { name: "Approve" }).click();
  const merged = page.getByTestId("builtin-change-merged");
  await expect(merged).toContainText(`staging/${agent.id}/memory_search-`);
  await expect(merged).toContainText('"limit":3');
  const listing = await apiCall<{ builtins: { description: string }[] }>("GET", "/api/worker/tools", undefined, token);
  expect(listing.body.builtins.map((b) => b.description)).toEqual(["Search, 3 results"]);
});
