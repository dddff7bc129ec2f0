// The Memory page in a real browser: browse, search with scores, read, delete
// (confirmed), inject a learning, and the retrieval-health panel.
import type { MemoryHealth } from "@/lib/contracts/memory";
import { newAgent, workerToken } from "./identity-support";
import { apiCall, expect, signIn, test, uniqueName } from "./support/fixtures";

test("an operator searches memory, reads and deletes a memory, and injects a learning", async ({ page }) => {
  const agent = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("memui") })).body.agent as { id: string; name: string };
  const marker = `kestrel${Date.now().toString(36)}`;
  const created = await apiCall("POST", "/api/v1/memories", {
    items: [
      {
        name: `Flaky ${marker} checkout test`,
        content: `The ${marker} checkout test fails on CI when run in parallel; run it in band.`,
        scope: "agent",
        agentId: agent.id,
        source: "task_failure",
      },
      { name: `Deploy ${marker} notes`, content: `Deploys of ${marker} need the staging VPN.`, scope: "swarm", source: "manual" },
    ],
  });
  expect(created.status).toBe(201);

  await signIn(page);
  await page.goto("/memory");
  await expect(page.getByRole("heading", { name: "Memory", level: 1 })).toBeVisible();
  await expect(page.getByTestId("memory-list")).toContainText(`Deploy ${marker} notes`);

  await page.getByTestId("memory-search").fill(`${marker} checkout fails in parallel`);
  await page.getByTestId("memory-search-submit").click();
  const results = page.getByTestId("memory-results");
  await expect(results.getByTestId("memory-row").first()).toContainText(`Flaky ${marker} checkout test`);
  const score = Number(await results.getByTestId("memory-score").first().textContent());
  expect(score).toBeGreaterThan(0.4);
  expect(score).toBeLessThanOrEqual(1);
  await expect(page.getByTestId("memory-health")).toContainText("Retrieval health");
  await page.screenshot({ path: "/tmp/memory-search.png", fullPage: true });

  await results.getByTestId("memory-row").first().click();
  await expect(page.getByTestId("memory-detail")).toContainText("run it in band");
  await page.getByTestId("memory-delete").click();
  await page.getByTestId("confirm-action").click();
  await expect(page.getByText("Memory deleted")).toBeVisible();
  expect((await apiCall("GET", `/api/v1/memories/${created.body.ids[0]}`)).status).toBe(404);

  await page.getByTestId("inject-learning").click();
  await page.getByTestId("learning-submit").click();
  await expect(page.getByRole("dialog").getByRole("alert").filter({ hasText: "Pick the agent" })).toBeVisible();
  await page.getByTestId("learning-target").selectOption(agent.id);
  await page.getByTestId("learning-category").selectOption("preference");
  await page.getByTestId("learning-text").fill(`Prefer small ${marker} pull requests with a test plan.`);
  await page.screenshot({ path: "/tmp/memory-inject.png" });
  await page.getByTestId("learning-submit").click();
  await expect(page.getByText(/Learning injected into/)).toBeVisible();
  const learned = await apiCall("POST", "/api/v1/memories/search", { query: `small ${marker} pull requests`, agentId: agent.id });
  expect(learned.body.results[0]).toMatchObject({ source: "lead_feedback", agentId: agent.id });
});

test("a link to a memory search opens with its search and filters, and the URL follows them", async ({ page }) => {
  const agent = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("memlink") })).body.agent as { id: string; name: string };
  const marker = `plover${Date.now().toString(36)}`;
  const created = await apiCall("POST", "/api/v1/memories", {
    items: [
      {
        name: `Lint ${marker} rule`,
        content: `The ${marker} lint rule flags unused imports.`,
        scope: "agent",
        agentId: agent.id,
        source: "manual",
      },
      { name: `Lint ${marker} swarm`, content: `Every agent runs the ${marker} lint before pushing.`, scope: "swarm", source: "manual" },
    ],
  });
  expect(created.status).toBe(201);
  await signIn(page);

  // The agent's own memories, keyword search, as a shared link gives them.
  await page.goto(`/memory?q=${marker}+lint&agentId=${agent.id}&scope=agent&mode=keyword`);
  await expect(page.getByTestId("memory-search")).toHaveValue(`${marker} lint`);
  await expect(page.getByTestId("memory-filter-agent")).toHaveValue(agent.id);
  await expect(page.getByTestId("memory-filter-agent").locator("option:checked")).toContainText(agent.name);
  await expect(page.getByTestId("memory-filter-scope")).toHaveValue("agent");
  await expect(page.getByLabel("Search mode")).toHaveValue("keyword");
  const results = page.getByTestId("memory-results");
  await expect(page.getByText("Answered by keyword search (keyword requested)")).toBeVisible();
  await expect(results.getByTestId("memory-row")).toHaveCount(1);
  await expect(results).toContainText(`Lint ${marker} rule`);

  // Widening the scope shows the swarm's memory too, and the link says so.
  await page.getByTestId("memory-filter-scope").selectOption("");
  await expect(results.getByTestId("memory-row")).toHaveCount(2);
  await expect(page).toHaveURL(new RegExp(`/memory\\?q=${marker}\\+lint&agentId=${agent.id}&mode=keyword$`));

  // The sidebar's "Memory" is the page without a search; Back is the search again.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Memory" }).click();
  await expect(page).toHaveURL(/\/memory$/);
  await expect(page.getByTestId("memory-search")).toHaveValue("");
  await expect(page.getByTestId("memory-filter-agent")).toHaveValue("");
  await expect(page.getByLabel("Search mode")).toHaveValue("auto");
  await expect(page.getByTestId("memory-list")).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/memory\\?q=${marker}\\+lint&agentId=${agent.id}&mode=keyword$`));
  await expect(page.getByTestId("memory-search")).toHaveValue(`${marker} lint`);
  await expect(page.getByLabel("Search mode")).toHaveValue("keyword");
  await expect(results.getByTestId("memory-row")).toHaveCount(2);

  // A scope, source or mode the page does not offer reads as none, and leaves the URL.
  await page.goto(`/memory?scope=everywhere&source=rumour&mode=psychic`);
  await expect(page.getByTestId("memory-filter-scope")).toHaveValue("");
  await expect(page.getByTestId("memory-filter-source")).toHaveValue("");
  await expect(page.getByLabel("Search mode")).toHaveValue("auto");
  await expect(page.getByTestId("memory-list")).toBeVisible();
  await expect(page).toHaveURL(/\/memory$/);
});

test("the retrieval-health panel counts the search a link opened, and says what it counts", async ({ page }) => {
  const marker = `heron${Date.now().toString(36)}`;
  expect(
    (await apiCall("POST", "/api/v1/memories", { name: `Release ${marker}`, content: `Tag ${marker} releases from main.`, scope: "swarm" }))
      .status,
  ).toBe(201);
  const before = (await apiCall<MemoryHealth>("GET", "/api/v1/memories/health?days=14")).body.perDay;
  const searches = before.reduce((sum, day) => sum + day.searches, 0);
  const injections = before.reduce((sum, day) => sum + day.injections, 0);

  // The panel's first answer is counted before the link's search is, and arrives after it
  // (a slow network): the panel must still end up counting that search.
  let answerSearch = () => {};
  const searchAnswered = new Promise<void>((resolve) => {
    answerSearch = resolve;
  });
  let first = true;
  await page.route("**/api/v1/memories/health*", async (route) => {
    if (!first) return route.continue();
    first = false;
    const response = await route.fetch();
    await searchAnswered;
    await route.fulfill({ response });
  });
  await signIn(page);
  await page.goto(`/memory?q=${encodeURIComponent(`${marker} releases`)}`);
  await expect(page.getByTestId("memory-results").getByTestId("memory-row").first()).toContainText(`Release ${marker}`);
  // (One frame later, once the page has reacted to the answer on screen.)
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  answerSearch();

  const panel = page.getByTestId("memory-health");
  await expect(panel.getByTestId("health-retrievals")).toHaveText(String(searches + injections + 1));
  await expect(panel).toContainText(new RegExp(`${searches + 1} search(es)? · ${injections} injections?`));
  await expect(panel.getByTestId("health-embedded-share")).not.toHaveText("–");
  // What is counted, in words: people's and agents' searches, and injections into task prompts.
  await expect(panel.getByTestId("health-counted")).toContainText("by people");
  await expect(panel.getByTestId("health-counted")).toContainText("by agents");
  await expect(panel.getByTestId("health-counted")).toContainText("the memories put into a task's prompt");
});

test("the retrieval-health panel says how many memories went into how many task prompts", async ({ page }) => {
  // A task whose prompt is built: one more task the injections are counted over.
  const agent = await newAgent();
  const token = workerToken(agent.id);
  const task = await apiCall<{ task: { id: string } }>("POST", "/api/v1/tasks", { title: "Count my memories", agentId: agent.id });
  expect((await apiCall("GET", "/api/worker/poll?waitMs=3000", undefined, token)).body.task.id).toBe(task.body.task.id);
  expect((await apiCall("GET", `/api/worker/tasks/${task.body.task.id}/bundle`, undefined, token)).status).toBe(200);
  const { injectionsPerTask } = (await apiCall<MemoryHealth>("GET", "/api/v1/memories/health?days=14")).body;
  expect(injectionsPerTask.tasks).toBeGreaterThan(0);

  await signIn(page);
  await page.goto("/memory");
  const stat = page.getByTestId("health-injections-per-task");
  await expect(stat).toHaveText(injectionsPerTask.average.toFixed(1));
  // The hint counts the memories and the tasks they went into (it called every task "given memories", none or not).
  const memories = `${injectionsPerTask.injected} ${injectionsPerTask.injected === 1 ? "memory" : "memories"}`;
  const tasks = `${injectionsPerTask.tasks} task prompt${injectionsPerTask.tasks === 1 ? "" : "s"}`;
  await expect(stat.locator("..")).toContainText(`${memories} into ${tasks}`);
  await expect(stat.locator("..")).not.toContainText("given memories");
});
