// The Schedules page in Chromium: the shipped templates, creating a schedule with
// a live cron preview and validation, enabling it, and running it now.
import { apiCall, expect, signIn, test, uniqueName } from "./support/fixtures";

test("create a schedule with a cron preview, enable it and run it now", async ({ page }) => {
  const agent = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("sched") })).body.agent;
  await signIn(page);
  await page.goto("/schedules");
  const rows = page.getByTestId("schedule-row");
  await expect(rows.filter({ hasText: "Weekly metrics check" })).toContainText("disabled");
  await expect(rows.filter({ hasText: "Weekly retrospective" })).toContainText("every Monday at 09:00");

  await page.getByTestId("new-schedule").click();
  const form = page.getByTestId("schedule-form");
  await form.getByLabel("Start from a template").selectOption("daily-knowledge-digest");
  await expect(form.getByLabel("Task title")).toHaveValue("Daily knowledge digest");
  const name = uniqueName("Digest");
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Cron", { exact: true }).fill("0 25 * * *");
  await expect(form.getByRole("alert")).toContainText("0-23");
  await expect(page.getByTestId("schedule-save")).toBeDisabled();
  await form.getByLabel("Cron", { exact: true }).fill("30 7 * * 1-5");
  await expect(page.getByTestId("cron-preview")).toContainText("Runs every weekday at 07:30 (UTC)");
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
