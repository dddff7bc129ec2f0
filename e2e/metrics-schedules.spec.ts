// The Schedules page in Chromium: the learning-loop templates offered once a lead
// exists, creating a schedule with a target and a live cron preview and
// validation, enabling it, running it now, and its run history.
import { apiCall, expect, signIn, test, uniqueName } from "./support/fixtures";

test("create a schedule with a cron preview, enable it and run it now", async ({ page }) => {
  const agent = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("sched") })).body.agent;
  await signIn(page);
  await page.goto("/schedules");
  const rows = page.getByTestId("schedule-row");

  // Closing the dialog unchanged gives focus back to the button that opened it.
  await page.getByTestId("new-schedule").click();
  await expect(page.getByTestId("schedule-form")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("schedule-form")).toHaveCount(0);
  await expect(page.getByTestId("new-schedule")).toBeFocused();
  await page.getByTestId("new-schedule").click();
  const form = page.getByTestId("schedule-form");
  await form.getByLabel("Start from a template").selectOption("daily-knowledge-digest");
  await expect(form.getByLabel("Task title")).toHaveValue("Daily knowledge digest");
  const name = uniqueName("Digest");
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Cron", { exact: true }).fill("0 25 * * *");
  await expect(form.getByRole("alert")).toContainText("0-23");
  await expect(page.getByTestId("schedule-save")).toBeDisabled();
  await form.getByLabel("Cron", { exact: true }).fill("0 0 9 * * 1");
  await expect(form.getByRole("alert")).toContainText("Six-field cron expressions (with seconds) are not supported");
  await form.getByLabel("Cron", { exact: true }).fill("* * * * *");
  await expect(form.getByRole("alert")).toContainText("a schedule may fire at most every 5 minutes");
  await form.getByLabel("Cron", { exact: true }).fill("30 7 * * 1-5");
  await expect(page.getByTestId("cron-preview")).toContainText("Runs every weekday at 07:30 (UTC)");
  // An unknown time zone is named under Time zone, not under Cron.
  await form.getByLabel("Time zone").fill("Mars/Olympus");
  const underTimeZone = form.getByLabel("Time zone").locator("xpath=following-sibling::p[@role='alert']");
  await expect(underTimeZone).toHaveText('Unknown time zone "Mars/Olympus"');
  await expect(form.getByRole("alert")).toHaveCount(1);
  await expect(form.getByLabel("Cron", { exact: true }).locator("xpath=following-sibling::p[@role='alert']")).toHaveCount(0);
  await expect(page.getByTestId("schedule-save")).toBeDisabled();
  await form.getByLabel("Time zone").fill("UTC");
  await expect(page.getByTestId("cron-preview")).toContainText("Runs every weekday at 07:30 (UTC)");
  await form.getByLabel("Target", { exact: true }).selectOption("agent");
  await form.getByLabel("Target agent").selectOption(agent.id);
  await page.screenshot({ path: "/tmp/schedules-form.png" });
  await page.getByTestId("schedule-save").click();
  await expect(page.getByText("Schedule created")).toBeVisible();

  const row = rows.filter({ hasText: name });
  await expect(row).toContainText(`for ${agent.name}`);
  await expect(row.getByTestId("schedule-next-run")).toHaveText("disabled");
  await row.getByTestId("schedule-toggle").click();
  await expect(row).toContainText("enabled");
  await expect(row.getByTestId("schedule-next-run").locator("time")).toBeVisible();
  await expect(row.getByTestId("schedule-last-run")).toHaveText("never");
  // The agent's worker has called in: a run creates its task (an offline agent's run is skipped, saying so).
  const token = (await apiCall("POST", `/api/v1/agents/${agent.id}/tokens`, { name: "e2e" })).body.token;
  await apiCall("POST", "/api/worker/register", { version: "e2e", hostname: "here", harness: "command" }, token);
  await row.getByTestId("schedule-run").click();
  await expect(page.getByText(`Task created from "${name}"`)).toBeVisible();
  await expect(row.getByTestId("schedule-last-run").locator("time")).toBeVisible();
  await page.screenshot({ path: "/tmp/schedules.png", fullPage: true });

  const list = (await apiCall("GET", "/api/v1/schedules")).body.schedules as Array<{
    name: string;
    lastTaskId: string | null;
    enabled: boolean;
  }>;
  expect(list.find((s) => s.name === name)).toMatchObject({ enabled: true, lastTaskId: expect.any(String) });
});

test("learning-loop templates appear once a lead exists and install as enabled schedules", async ({ page }) => {
  await apiCall("POST", "/api/v1/agents", { name: uniqueName("lead"), role: "lead" });
  await signIn(page);
  const offer = page.getByTestId("lead-templates");
  // Start from no template installed (the test above made the daily digest from its template), so the
  // offer is always there to install.
  const existing = (await apiCall("GET", "/api/v1/schedules")).body.schedules as Array<{ id: string; templateKey: string | null }>;
  for (const schedule of existing.filter((s) => s.templateKey)) {
    expect((await apiCall("DELETE", `/api/v1/schedules/${schedule.id}`)).status).toBe(204);
  }
  await page.goto("/schedules");
  await expect(offer.getByTestId("offered-template")).toHaveCount(4);
  await expect(offer).toContainText("Weekly retrospective");
  await expect(offer).toContainText("Daily knowledge digest");
  await expect(offer).toContainText("for every agent");
  // Each says what it does in whole sentences, its commands as code (no raw backticks, no line cut at a colon);
  // the full instructions open on request.
  const summaries = offer.getByTestId("template-summary");
  await expect(summaries).toHaveCount(4);
  for (const text of await summaries.allTextContents()) {
    expect(text).toMatch(/\.$/);
    expect(text).not.toContain("`");
  }
  const metricsCheck = offer.getByTestId("offered-template").filter({ hasText: "Weekly metrics check" });
  await expect(metricsCheck.getByTestId("template-summary").locator("code")).toHaveText("swarm swarm report");
  const instructions = metricsCheck.getByTestId("template-instructions");
  await expect(instructions.getByText("swarm swarm failures --since 7d")).toBeHidden();
  await instructions.getByText("The task's full instructions").click();
  await expect(instructions.locator("code", { hasText: "swarm swarm failures --since 7d" })).toBeVisible();
  await expect(instructions).not.toContainText("`");
  await offer.getByTestId("add-templates").click();
  await expect(offer).toHaveCount(0);
  const installed = (await apiCall("GET", "/api/v1/schedules")).body.schedules as Array<{ templateKey: string | null; enabled: boolean }>;
  expect(
    installed
      .filter((s) => s.templateKey)
      .map((s) => [s.templateKey, s.enabled])
      .sort(),
  ).toEqual([
    ["daily-knowledge-digest", true],
    ["monthly-swarm-review", true],
    ["weekly-metrics-check", true],
    ["weekly-retrospective", true],
  ]);
  const row = (name: string) =>
    page.getByTestId("schedule-row").filter({ has: page.getByTestId("schedule-link").getByText(name, { exact: true }) });
  await expect(row("Weekly retrospective")).toContainText("for every agent");
  await expect(row("Weekly metrics check")).toContainText("for the lead(s)");
  await expect(row("Monthly swarm review")).toContainText("enabled");
});

test("a schedule's page lists its runs: tasks with links, and skipped runs with the reason", async ({ page }) => {
  const name = uniqueName("Pool chore");
  const schedule = (await apiCall("POST", "/api/v1/schedules", { name, cron: "0 6 * * *", enabled: true, taskTitle: `Sweep for ${name}` }))
    .body.schedule;
  const first = await apiCall("POST", `/api/v1/schedules/${schedule.id}/run`);
  expect(first.status).toBe(201);
  // Its task is still waiting in the pool: the next run is skipped.
  const second = await apiCall("POST", `/api/v1/schedules/${schedule.id}/run`);
  expect(second.body.run.status).toBe("skipped");

  await signIn(page);
  await page.goto("/schedules");
  const row = page.getByTestId("schedule-row").filter({ hasText: name });
  await expect(row.getByTestId("schedule-last-run")).toContainText("skipped");
  await row.getByTestId("schedule-link").click();
  await expect(page.getByRole("heading", { name })).toBeVisible();
  const runs = page.getByTestId("schedule-run-row");
  await expect(runs).toHaveCount(2);
  await expect(runs.nth(0)).toContainText("skipped");
  await expect(runs.nth(0).getByTestId("schedule-run-skip")).toContainText(
    `The previous run's task ${first.body.run.taskId} is still unassigned`,
  );
  await expect(runs.nth(1)).toContainText("tasks created");
  await expect(runs.nth(1)).toContainText("run now");
  const task = runs.nth(1).getByTestId("schedule-run-task");
  await expect(task).toContainText("pool task");
  await expect(task).toContainText("In the pool");
  for (const [width, height, theme] of [
    [1440, 900, "light"],
    [390, 844, "dark"],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme: theme });
    await page.screenshot({ path: `/tmp/schedule-runs-${width}-${theme}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });

  // The page acts on the schedule itself: Disable/Enable, Run now and Edit, as the list does.
  await page.getByTestId("schedule-toggle").click();
  await expect(page.getByText("Schedule disabled")).toBeVisible();
  await expect(page.getByTestId("schedule-toggle")).toHaveText("Enable");
  await expect(page.getByText("No next run while the schedule is disabled.")).toBeVisible();
  await page.getByTestId("schedule-toggle").click();
  await expect(page.getByTestId("schedule-toggle")).toHaveText("Disable");
  await expect(page.getByText("Next run", { exact: false }).first()).toBeVisible();
  await page.getByTestId("schedule-run").click();
  // (Its task from the first run still waits in the pool, so this run is skipped too.)
  await expect(page.getByText(`Nothing created from "${name}"`)).toBeVisible();
  await expect(runs).toHaveCount(3);
  await page.getByTestId("schedule-edit").click();
  const editForm = page.getByTestId("schedule-form");
  await expect(editForm.getByLabel("Name")).toHaveValue(name);
  const renamed = `${name} (renamed)`;
  await editForm.getByLabel("Name").fill(renamed);
  await page.getByTestId("schedule-save").click();
  await expect(page.getByText("Schedule saved")).toBeVisible();
  await expect(page.getByRole("heading", { name: renamed })).toBeVisible();
  expect((await apiCall("GET", `/api/v1/schedules/${schedule.id}`)).body.schedule).toMatchObject({ name: renamed, enabled: true });
  // Closing the edit dialog gives focus back to its button.
  await page.getByTestId("schedule-edit").click();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("schedule-edit")).toBeFocused();

  // (The run made above is now the newest row: the run that created the task is found by what it did.)
  await runs
    .filter({ hasText: "tasks created" })
    .getByTestId("schedule-run-task")
    .getByRole("link", { name: `Sweep for ${name}` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${first.body.run.taskId}$`));
  await expect(page.getByRole("heading", { name: `Sweep for ${name}` })).toBeVisible();

  // "Last run" on the list links to the last run's task.
  await page.goto("/schedules");
  await page.getByTestId("schedule-row").filter({ hasText: renamed }).getByTestId("schedule-last-run").getByRole("link").first().click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${first.body.run.taskId}$`));
});

test.describe("with the browser on India's clock", () => {
  // Neither zone has daylight saving time, so the hours below hold on every day of the year:
  // Tokyo is UTC+9 and Kolkata UTC+5:30, so 02:30 in Tokyo is 23:00 of the day before in Kolkata.
  test.use({ timezoneId: "Asia/Kolkata", locale: "en-US" });

  test("a schedule's times read in its own time zone, on the cron's 24-hour clock, the viewer's own beside them", async ({ page }) => {
    const agent = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("tokyo") })).body.agent;
    const name = uniqueName("Tokyo nightly");
    const created = await apiCall("POST", "/api/v1/schedules", {
      name,
      cron: "30 2 * * *",
      timezone: "Asia/Tokyo",
      enabled: true,
      agentId: agent.id,
      taskTitle: "Nightly check",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const nextRunAt = created.body.schedule.nextRunAt as string;
    // One on the viewer's own clock too: its times are short, with no "your time" beside them.
    const localName = uniqueName("Kolkata standup");
    const local = await apiCall("POST", "/api/v1/schedules", {
      name: localName,
      cron: "0 18 * * *",
      timezone: "Asia/Kolkata",
      enabled: true,
      agentId: agent.id,
      taskTitle: "Evening check",
    });
    expect(local.status, JSON.stringify(local.body)).toBe(201);
    // The run's day in Tokyo, and the day before it, when the viewer in Kolkata sees it at 23:00.
    const tokyoDay = new Date(Date.parse(nextRunAt) + 9 * 3600_000);
    const kolkataDay = new Date(Date.parse(nextRunAt) + 5.5 * 3600_000);
    const monthDay = (day: Date) => `${day.toLocaleString("en-US", { month: "short", timeZone: "UTC" })} ${day.getUTCDate()}`;
    expect(tokyoDay.getUTCDate()).not.toBe(kolkataDay.getUTCDate());

    await signIn(page);
    await page.goto("/schedules");
    await expect(page.getByText("Times are in each schedule's own time zone")).toBeVisible();
    const next = page.getByTestId("schedule-row").filter({ hasText: name }).getByTestId("schedule-next-run");
    await expect(next).toContainText(`${monthDay(tokyoDay)}, 02:30`);
    await expect(next).toContainText(`${monthDay(kolkataDay)}, 23:00 your time`);
    await expect(next.locator("time")).toHaveAttribute("datetime", nextRunAt);
    await expect(next).not.toContainText(/AM|PM|:00:00/);
    const localRow = page.getByTestId("schedule-row").filter({ hasText: localName });
    await expect(localRow.getByTestId("schedule-next-run")).toContainText(", 18:00");
    await expect(localRow.getByTestId("schedule-next-run")).not.toContainText("your time");
    // Both times fit a phone's row, without scrolling the page sideways, and the run times
    // take a line of their own rather than squeeze the name and cron into a narrow column.
    await page.setViewportSize({ width: 390, height: 844 });
    await next.scrollIntoViewIfNeeded();
    await expect(next).toBeInViewport({ ratio: 1 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const row of [page.getByTestId("schedule-row").filter({ hasText: name }), localRow]) {
      const summary = await row.getByTestId("schedule-summary").boundingBox();
      expect(summary?.width).toBeGreaterThan(250);
      await row.getByTestId("schedule-next-run").scrollIntoViewIfNeeded();
      await expect(row.getByTestId("schedule-next-run")).toBeInViewport({ ratio: 1 });
    }
    await page.screenshot({ path: "test-results/schedules-own-zone-390.png", fullPage: true });
    await page.setViewportSize({ width: 1400, height: 900 });

    await page.getByTestId("schedule-link").getByText(name, { exact: true }).click();
    const detail = page.getByTestId("schedule-detail-next-run");
    await expect(detail).toContainText(`Next run`);
    await expect(detail).toContainText(`${monthDay(tokyoDay)}, 02:30`);
    await expect(detail).toContainText("23:00 your time");

    // The form's preview of the next runs, as the zone is typed.
    await page.goto("/schedules");
    await page.getByTestId("new-schedule").click();
    const form = page.getByTestId("schedule-form");
    await form.getByLabel("Cron", { exact: true }).fill("30 2 * * *");
    await form.getByLabel("Time zone").fill("Asia/Tokyo");
    const preview = page.getByTestId("cron-preview");
    await expect(preview).toContainText("Runs every day at 02:30 (Asia/Tokyo)");
    await expect(preview).toContainText(`Next: `);
    await expect(preview).toContainText(`${monthDay(tokyoDay)}, 02:30 (`);
    await expect(preview).toContainText(`${monthDay(kolkataDay)}, 23:00 your time)`);
    // On the viewer's own zone there is one time only.
    await form.getByLabel("Time zone").fill("Asia/Kolkata");
    await expect(preview).toContainText("Runs every day at 02:30 (Asia/Kolkata)");
    await expect(preview).toContainText(", 02:30");
    await expect(preview).not.toContainText("your time");
  });
});

test("a schedule is deleted from its own page as from the list, after a confirmation; the tasks it created stay", async ({ page }) => {
  const create = async (name: string) =>
    (await apiCall("POST", "/api/v1/schedules", { name, cron: "0 6 * * *", enabled: true, taskTitle: `Chore for ${name}` })).body
      .schedule as { id: string };
  const fromPage = uniqueName("Weekly chore");
  const fromList = uniqueName("Daily chore");
  const onPage = await create(fromPage);
  const onList = await create(fromList);
  const ran = await apiCall("POST", `/api/v1/schedules/${onPage.id}/run`);
  expect(ran.status).toBe(201);

  await signIn(page);
  await page.goto(`/schedules/${onPage.id}`);
  await expect(page.getByRole("heading", { name: fromPage })).toBeVisible();
  await page.getByTestId("schedule-delete").click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm).toContainText(`Delete "${fromPage}"?`);
  await expect(confirm).toContainText("tasks it already created stay");
  // Cancelling keeps it.
  await confirm.getByRole("button", { name: "Cancel" }).click();
  expect((await apiCall("GET", `/api/v1/schedules/${onPage.id}`)).status).toBe(200);
  // Once deleted, its page leaves without asking for it again (no flash of "not found").
  const askedAfter: number[] = [];
  page.on("response", (response) => {
    if (new URL(response.url()).pathname === `/api/v1/schedules/${onPage.id}` && response.request().method() === "GET") {
      askedAfter.push(response.status());
    }
  });
  await page.getByTestId("schedule-delete").click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete schedule" }).click();
  await expect(page.getByText("Schedule deleted")).toBeVisible();
  await expect(page).toHaveURL(/\/schedules$/);
  await expect(page.getByTestId("schedule-row").filter({ hasText: fromList })).toBeVisible();
  expect(askedAfter).toEqual([]);
  await expect(page.getByTestId("schedule-row").filter({ hasText: fromList })).toBeVisible();
  await expect(page.getByTestId("schedule-row").filter({ hasText: fromPage })).toHaveCount(0);
  expect((await apiCall("GET", `/api/v1/schedules/${onPage.id}`)).status).toBe(404);
  expect((await apiCall("GET", `/api/v1/tasks/${ran.body.run.taskId}`)).status).toBe(200);

  await page
    .getByTestId("schedule-row")
    .filter({ hasText: fromList })
    .getByRole("button", { name: `Delete ${fromList}` })
    .click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete schedule" }).click();
  await expect(page.getByTestId("schedule-row").filter({ hasText: fromList })).toHaveCount(0);
  expect((await apiCall("GET", `/api/v1/schedules/${onList.id}`)).status).toBe(404);
});
