// The learning dashboard in Chromium, drawn from real data seeded into the
// server's database: charts render, the agent filter changes what is drawn, and
// a point of the identity timeline opens its diff in Monaco.
import { openSeedDb, seedTask, seedVersion } from "../tests/support/metrics-seed";
import { apiCall, expect, serverInfo, signIn, splitWords, test, uniqueName } from "./support/fixtures";

const DAY = 86_400_000;
let alpha: { id: string; name: string };
let beta: { id: string; name: string };
let soul2: string;

test.beforeAll(async () => {
  alpha = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("alpha") })).body.agent;
  beta = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("beta") })).body.agent;
  const now = Date.now();
  const sqlite = openSeedDb(`file:${serverInfo().dbFile}`);
  try {
    const soul1 = await seedVersion(sqlite, {
      agentId: alpha.id,
      kind: "SOUL",
      content: "# Soul\nShip small changes.\n",
      source: "editor",
      at: now - 6 * DAY,
    });
    soul2 = await seedVersion(sqlite, {
      agentId: alpha.id,
      kind: "SOUL",
      content: "# Soul\nShip small changes.\nRun the tests before every commit.\n",
      source: "approved_proposal",
      authorType: "agent",
      reason: "Two regressions last week",
      at: now - 3 * DAY,
    });
    for (let i = 0; i < 5; i += 1)
      await seedTask(sqlite, {
        agentId: alpha.id,
        status: i < 3 ? "completed" : "failed",
        at: now - 5 * DAY + i * 60_000,
        durationMs: 40_000 + i * 1000,
        failureReason: "Tests failed in module 42",
        soulVersionId: soul1,
      });
    for (let i = 0; i < 5; i += 1)
      await seedTask(sqlite, {
        agentId: alpha.id,
        status: "completed",
        at: now - 2 * DAY + i * 60_000,
        durationMs: 20_000 + i * 1000,
        soulVersionId: soul2,
      });
    for (let i = 0; i < 6; i += 1)
      await seedTask(sqlite, {
        agentId: beta.id,
        status: i === 0 ? "completed" : "failed",
        at: now - 4 * DAY + i * 60_000,
        durationMs: 90_000,
        failureReason: `Exit code ${i}`,
      });
  } finally {
    await sqlite.close();
  }
});

test("the metrics page draws charts from real data and follows the agent filter", async ({ page }) => {
  await signIn(page);
  await page.goto("/metrics");
  const rates = page.getByTestId("chart-rates-plot");
  // The first draw waits for six endpoints; give a loaded machine time.
  await expect(rates.locator(".recharts-line-curve").first()).toBeVisible({ timeout: 30_000 });
  await expect(rates.locator(".recharts-legend-item-text", { hasText: alpha.name })).toBeVisible();
  await expect(rates.locator(".recharts-legend-item-text", { hasText: beta.name })).toBeVisible();
  const durations = page.getByTestId("chart-durations-plot");
  await expect(durations.locator(".recharts-line-curve")).toHaveCount(2);
  // The top duration tick reads in minutes (beta's tasks take 90 s) and stays whole:
  // one line, inside the chart's frame, not wrapped at its space and cut off.
  const ticks = durations.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value");
  await expect(ticks.filter({ hasText: /min$/ }).first()).toBeVisible();
  const frame = await durations.boundingBox();
  for (const tick of await ticks.all()) {
    await expect(tick.locator("tspan")).toHaveCount(1);
    const box = await tick.boundingBox();
    expect(box && frame && box.x >= frame.x && box.y >= frame.y).toBe(true);
  }
  await expect(page.getByTestId("failure-groups")).toContainText("exit code <n>");
  await page.screenshot({ path: "/tmp/metrics-swarm.png", fullPage: true });

  await page.getByTestId("metrics-agent").selectOption(alpha.id);
  await expect(page.getByTestId("stat-completed")).toContainText("8");
  await expect(page.getByTestId("stat-failed")).toContainText("2");
  await expect(rates.locator(".recharts-line-curve")).toHaveCount(1);
  await expect(rates.locator(".recharts-legend-item-text", { hasText: beta.name })).toHaveCount(0);
  await expect(page.getByTestId("failure-groups")).not.toContainText("exit code");
  await expect(page.getByTestId("failure-groups")).toContainText("tests failed in module <n>");
  // Outcome per SOUL.md version: 3 of 5 under v1, 5 of 5 under v2.
  const outcomes = page.getByTestId("soul-outcomes-table");
  await expect(outcomes).toContainText("60.0%");
  await expect(outcomes).toContainText("100.0%");
  await expect(outcomes).toContainText("+40.0%");
  await page.screenshot({ path: "/tmp/metrics-alpha.png", fullPage: true });
});

test("a point on the identity timeline opens its diff", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.goto("/metrics");
  await page.getByTestId("metrics-agent").selectOption(alpha.id);
  const point = page.locator(`[data-testid="identity-point"][data-version-id="${soul2}"]`);
  await expect(point).toBeVisible({ timeout: 30_000 });
  await point.click();
  const diff = page.getByTestId("version-diff");
  await expect(diff).toBeVisible();
  await expect(page.getByRole("dialog")).toContainText("SOUL v");
  await expect(diff.locator(".monaco-diff-editor")).toBeVisible({ timeout: 20_000 });
  await expect(diff.locator(".modified-in-monaco-diff-editor, .editor.modified").first()).toContainText(
    "Run the tests before every commit.",
  );
  await page.screenshot({ path: "/tmp/metrics-diff.png" });
});

test("the dashboard shows a banner for an open failure-rate alert", async ({ page }) => {
  // beta failed 5 of 6: below the minimum of 10 tasks, so no alert for it alone.
  const sqlite = openSeedDb(`file:${serverInfo().dbFile}`);
  const now = Date.now();
  const noisy = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("noisy") })).body.agent;
  for (let i = 0; i < 12; i += 1)
    await seedTask(sqlite, {
      agentId: noisy.id,
      status: i < 6 ? "failed" : "completed",
      at: now - 60_000,
      durationMs: 5000,
      failureReason: "flaky",
    });
  await sqlite.close();
  expect((await apiCall("POST", "/api/v1/alerts/evaluate")).status).toBe(200);
  await signIn(page);
  await page.goto("/");
  const banner = page.getByTestId("alert-banner");
  await expect(banner).toBeVisible();
  await expect(banner).toContainText(noisy.name);
  await expect(banner).toContainText("6 of 12 tasks failed (50%)");
  await page.screenshot({ path: "/tmp/dashboard-alert.png" });
});

test("the charts read well in the dark theme", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await signIn(page);
  await page.goto("/metrics");
  await expect(page.locator("html")).toHaveClass(/dark/);
  await page.getByTestId("metrics-agent").selectOption(alpha.id);
  await expect(page.getByTestId("chart-rates-plot").locator(".recharts-line-curve")).toHaveCount(1);
  // Axis labels take the theme's muted text colour, not the light theme's.
  const tickFill = await page
    .getByTestId("chart-rates-plot")
    .locator(".recharts-cartesian-axis-tick-value")
    .first()
    .evaluate((el) => getComputedStyle(el).fill);
  expect(tickFill).toBe("rgb(154, 163, 178)");
  await page.screenshot({ path: "/tmp/metrics-dark.png", fullPage: true });
});

test("on a phone the weekly report wraps a failure reason between words, not inside them", async ({ page }) => {
  // (No "to" or "from" in it: the failure chart's legend is labelled with it, and a test here finds the date boxes by those labels.)
  const reason = "npm test failed: TimeoutError: page.click: Timeout exceeded while waiting for the checkout link";
  const sqlite = openSeedDb(`file:${serverInfo().dbFile}`);
  const wordy = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("wordy") })).body.agent;
  for (let i = 0; i < 8; i += 1)
    await seedTask(sqlite, { agentId: wordy.id, status: "failed", at: Date.now() - 60_000, durationMs: 5000, failureReason: reason });
  await sqlite.close();
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page);
  await page.goto("/metrics");
  const text = page.getByTestId("weekly-failure-reason").filter({ hasText: "checkout link" }).locator("span").first();
  await expect(text).toBeVisible();
  // Every word of the reason stands on one line (break-all cut "timeout" into "tim" and "eout").
  const split = await splitWords(text);
  expect(split).toEqual([]);
});

test("identity evolution stays readable at 50 agents: one row per agent, a file filter, no axis past now", async ({ page }) => {
  test.setTimeout(180_000);
  const start = Date.parse("2024-06-01T08:00:00Z");
  const agents: { id: string; name: string }[] = [];
  // Names that fit a lane's label whole (19 characters): uniqueName's counter grows over
  // a run, and past that length the label is shortened (checked with the long name below).
  const run = Date.now().toString(36).slice(-6);
  for (let i = 0; i < 49; i += 1) {
    agents.push((await apiCall("POST", "/api/v1/agents", { name: `fleet${String(i).padStart(2, "0")}-${run}` })).body.agent);
  }
  const longName = `fleet49-a-very-long-agent-name-${run}`;
  agents.push((await apiCall("POST", "/api/v1/agents", { name: longName })).body.agent);
  const sqlite = openSeedDb(`file:${serverInfo().dbFile}`);
  try {
    for (const [i, agent] of agents.entries()) {
      for (const [k, kind] of ["SOUL", "IDENTITY", "TOOLS", "USER"].entries()) {
        await seedVersion(sqlite, {
          agentId: agent.id,
          kind,
          content: `# ${kind}\nv${i}\n`,
          source: "editor",
          at: start + (i * 4 + k) * 3_600_000,
        });
      }
    }
  } finally {
    await sqlite.close();
  }
  await signIn(page);
  await page.goto("/metrics");
  // Every agent is in the picker (they come from a query in the browser).
  await expect(page.getByTestId("metrics-agent").locator(`option[value="${agents[49]!.id}"]`)).toBeAttached({ timeout: 30_000 });
  await page.getByLabel("From", { exact: true }).fill("2024-06-01");
  await page.getByLabel("To", { exact: true }).fill("2024-06-12");
  await expect(page.getByLabel("From", { exact: true })).toHaveValue("2024-06-01");
  await expect(page.getByLabel("To", { exact: true })).toHaveValue("2024-06-12");
  const chart = page.getByTestId("chart-identity");
  await expect(chart.locator("[data-testid=identity-point]")).toHaveCount(200, { timeout: 30_000 });
  const lanes = chart.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value");
  await expect(lanes).toHaveCount(50);
  await expect(lanes.first()).toHaveText(agents[0]!.name);
  // A name too long for its lane shows its start and its end; the tooltip has it whole.
  const shortened = (await lanes.last().textContent()) ?? "";
  expect(shortened.length).toBeLessThanOrEqual(19);
  expect(shortened).toMatch(new RegExp(`^fleet49-.*….*${run}$`));
  await expect(chart.getByTestId("identity-lane").last().locator("title")).toHaveText(longName);
  await page.getByTestId("identity-file-filter").selectOption("SOUL");
  await expect(chart.locator("[data-testid=identity-point]")).toHaveCount(50);
  await expect(lanes).toHaveCount(50);
  await chart.screenshot({ path: "test-results/identity-timeline-50.png" });

  // Changes from the last hour: the axis ends now at the latest, not an hour ahead.
  const recent = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("recent") })).body.agent;
  const now = Date.now();
  const db = openSeedDb(`file:${serverInfo().dbFile}`);
  try {
    await seedVersion(db, { agentId: recent.id, kind: "SOUL", content: "# Soul\nnew\n", source: "editor", at: now - 30 * 60_000 });
    await seedVersion(db, { agentId: recent.id, kind: "SOUL", content: "# Soul\nnewer\n", source: "editor", at: now - 5 * 60_000 });
  } finally {
    await db.close();
  }
  await page.goto("/metrics");
  await page.getByTestId("metrics-agent").selectOption(recent.id);
  const ticks = chart.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
  await expect(chart.locator("[data-testid=identity-point]").first()).toBeVisible({ timeout: 30_000 });
  const labels = await ticks.allTextContents();
  const times = labels.map((label) => tickTime(label, now));
  expect(labels.length).toBeGreaterThan(1);
  for (const time of times) expect(time, `tick labels ${labels.join(", ")}`).not.toBeNaN();
  // Two changes 25 minutes apart: ticks to the second, none past now.
  expect(labels.every((label) => /^\d{2}:\d{2}:\d{2}$/.test(label))).toBe(true);
  expect(Math.max(...times)).toBeLessThanOrEqual(now + 60_000);
});

/**
 * An identity-timeline tick as epoch ms. The axis reads in UTC: "HH:MM:SS" on a span
 * under two hours, "MM-DD HH:MM" under four days, "MM-DD" beyond.
 */
function tickTime(label: string, now: number): number {
  const day = new Date(now).toISOString().slice(0, 10);
  if (/^\d{2}:\d{2}:\d{2}$/.test(label)) {
    const time = Date.parse(`${day}T${label}Z`);
    // A tick before midnight seen just after it belongs to the day before.
    return time > now + 12 * 3_600_000 ? time - 86_400_000 : time;
  }
  const year = day.slice(0, 4);
  if (/^\d{2}-\d{2} \d{2}:\d{2}$/.test(label)) return Date.parse(`${year}-${label.replace(" ", "T")}:00Z`);
  if (/^\d{2}-\d{2}$/.test(label)) return Date.parse(`${year}-${label}T00:00:00Z`);
  return Number.NaN;
}
