// The home page says what needs the operator: numbers checked against a history
// seeded through the API (proposals and offered tasks waiting, tasks failed since
// the last visit, agents offline or with a failing setup) and trends linking to /metrics.
import { identityFile, newAgent, workerToken } from "./identity-support";
import { apiCall, expect, signIn, test, uniqueName } from "./support/fixtures";

test.describe.configure({ timeout: 120_000 });

test("the home page counts what waits, what failed since the last look, and who is offline", async ({ page }) => {
  await signIn(page);
  // The last look is now: only what happens from here counts as new.
  await page.evaluate(() => localStorage.setItem("swarmdeck:last-look", String(Date.now())));

  const agent = await newAgent({ securityProfile: "standard" });
  const token = workerToken(agent.id);
  for (const slug of ["soul", "user"]) {
    const base = await identityFile(agent.id, slug);
    const reply = await apiCall(
      "PUT",
      `/api/worker/identity/${slug}`,
      { content: `# ${slug}\n\nA change.\n`, baseVersionId: base.versionId, reason: "seeded", trigger: "agent" },
      token,
    );
    expect(reply.status).toBe(202);
  }
  for (const title of ["Tidy the README", "Cache the npm install"]) {
    expect(
      (await apiCall("POST", "/api/worker/tasks", { title: `${title} ${uniqueName("o")}`, description: "", tags: [] }, token)).status,
    ).toBe(201);
  }
  const failedTitles: string[] = [];
  for (const reason of ["npm test: 3 failing", "timed out"]) {
    const title = `Flaky job ${uniqueName("f")}`;
    const created = await apiCall("POST", "/api/v1/tasks", { title, agentId: agent.id });
    await apiCall("GET", "/api/worker/poll?waitMs=2000", undefined, token);
    expect((await apiCall("POST", `/api/worker/tasks/${created.body.task.id}/fail`, { failureReason: reason }, token)).status).toBe(200);
    failedTitles.push(title);
  }
  const setup = await apiCall(
    "POST",
    "/api/worker/setup-status",
    { status: "failed", hash: "a".repeat(64), exitCode: 1, output: "apt-get: not found" },
    token,
  );
  expect(setup.status).toBe(200);

  const pending = (await apiCall<{ total: number }>("GET", "/api/v1/proposals/count?status=open")).body.total;
  const offered = (await apiCall<{ tasks: unknown[] }>("GET", "/api/v1/tasks?status=offered&limit=200")).body.tasks.length;
  const agents = (await apiCall<{ agents: { online: boolean; setup: { status: string } | null }[] }>("GET", "/api/v1/agents")).body.agents;
  expect(pending).toBeGreaterThanOrEqual(2);
  expect(offered).toBeGreaterThanOrEqual(2);

  await page.goto("/");
  await expect(page.getByTestId("attention-proposals-count")).toHaveText(String(pending));
  await expect(page.getByTestId("attention-offered-count")).toHaveText(String(offered));
  await expect(page.getByTestId("attention-failed-count")).toHaveText("2");
  await expect(page.getByTestId("attention-failed")).toContainText(`latest: ${failedTitles[1]}`);
  await expect(page.getByTestId("attention-offline-count")).toHaveText(String(agents.filter((a) => !a.online).length));
  await expect(page.getByTestId("attention-setup-count")).toHaveText(String(agents.filter((a) => a.setup?.status === "failed").length));
  await expect(page.getByTestId("attention-setup")).toContainText(agent.name);
  // Today's two failures are in the 14-day trend, and the trend leads to /metrics.
  await expect(page.getByTestId("trend-failed-value")).not.toHaveText("0");
  await expect(page.locator("[data-testid=trend-failed] .recharts-line")).toHaveCount(1);
  // The failure rate exists only for days with finished tasks; even one such day is drawn (as a point).
  const drawn = () =>
    page.locator("[data-testid=trend-failure-rate] svg.recharts-surface").evaluate((svg) => {
      const curve = [...svg.querySelectorAll("path.recharts-line-curve")].some((path) => /[LC]/.test(path.getAttribute("d") ?? ""));
      return curve || svg.querySelectorAll(".recharts-line-dot").length > 0;
    });
  await expect.poll(drawn).toBe(true);
  await page.screenshot({ path: "test-results/screens/home.png" });
  await page.getByTestId("attention-offered").click();
  await expect(page).toHaveURL(/\/tasks\?status=offered$/);
  await expect(page.getByTestId("filter-status")).toHaveValue("offered");

  // Looked at: coming back, the same failures are no longer new.
  await page.goto("/");
  await expect(page.getByTestId("attention-failed-count")).toHaveText("0");
});
