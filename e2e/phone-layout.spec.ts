// Layouts on a 390 px phone a UI review found ragged or cut off: the task filters
// and task cards, and the identity editor's reason box.
import type { Locator, Page } from "@playwright/test";
import { newAgent, replaceEditorText } from "./identity-support";
import { apiCall, expect, signIn, splitWords, test, uniqueName } from "./support/fixtures";

const PHONE = { width: 390, height: 844 };

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error("not on the page");
  return found;
}

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

test("on a phone the task filters form an even grid and a task card keeps priority and attempts on one line", async ({ page }) => {
  const agent = await newAgent();
  const title = `Phone card ${uniqueName("t")}`;
  const created = await apiCall("POST", "/api/v1/tasks", { title, agentId: agent.id, priority: 7, tags: ["phone"] });
  expect(created.status).toBe(201);
  await signIn(page);
  await page.setViewportSize(PHONE);
  await page.goto("/tasks");

  const filters = page.getByTestId("task-filters");
  const status = await box(filters.getByLabel("Status"));
  const agentPick = await box(filters.getByLabel("Agent"));
  const tag = await box(filters.getByLabel("Tag"));
  const search = await box(filters.getByLabel("Search"));
  const area = await box(filters);
  // The two pickers share the first line, each half of it.
  expect(Math.abs(status.y - agentPick.y)).toBeLessThan(1);
  expect(Math.abs(status.width - agentPick.width)).toBeLessThan(1);
  expect(status.width + agentPick.width).toBeGreaterThan(area.width - 16);
  // The tag and the search each take a whole line of their own, below them.
  for (const full of [tag, search]) {
    expect(full.width).toBeGreaterThan(area.width - 1);
    expect(full.x).toBeCloseTo(area.x, 0);
  }
  expect(tag.y).toBeGreaterThan(status.y + status.height - 1);
  expect(search.y).toBeGreaterThan(tag.y + tag.height - 1);

  // The card: priority and attempts, two short numbers, stand side by side, both still labelled.
  await filters.getByLabel("Search").fill(title);
  const card = page.getByTestId("task-row").filter({ hasText: title });
  await expect(card).toHaveCount(1);
  const priority = card.locator('[data-label="Priority"]');
  const attempts = card.locator('[data-label="Attempts"]');
  await expect(priority).toHaveText("7");
  await expect(attempts).toHaveText("0");
  const [p, a] = [await box(priority), await box(attempts)];
  expect(Math.abs(p.y - a.y)).toBeLessThan(1);
  expect(a.x).toBeGreaterThanOrEqual(p.x + p.width - 1);
  // Their labels are drawn (each cell's ::before) and do not run into a value.
  const labels = await card.evaluate((row) =>
    ["Priority", "Attempts"].map((label) => getComputedStyle(row.querySelector(`[data-label="${label}"]`) as Element, "::before").content),
  );
  expect(labels).toEqual(['"Priority"', '"Attempts"']);
  expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
  await page.screenshot({ path: "test-results/screens/phone-layout/tasks.png" });

  // On a desktop the filters stay one row.
  await page.setViewportSize({ width: 1280, height: 800 });
  const wideStatus = await box(filters.getByLabel("Status"));
  const wideSearch = await box(filters.getByLabel("Search"));
  expect(Math.abs(wideStatus.y - wideSearch.y)).toBeLessThan(1);
  expect((await box(filters.getByLabel("Tag"))).width).toBeLessThan(200);
});

test("on a phone the identity editor's reason box shows its whole placeholder", async ({ page }) => {
  const agent = await newAgent();
  await signIn(page);
  await page.setViewportSize(PHONE);
  await page.goto(`/agents/${agent.id}/identity`);
  // An edit, so the Discard button is beside the box too.
  await replaceEditorText(page, '[data-testid="identity-editor"]', "# Soul\n\nShorter.\n");
  await expect(page.getByRole("button", { name: "Discard" })).toBeVisible();
  const reason = page.getByTestId("identity-reason");
  const placeholder = (await reason.getAttribute("placeholder")) ?? "";
  // It still says that the reason is optional and where it is shown.
  expect(placeholder).toMatch(/optional/);
  expect(placeholder).toMatch(/history/);
  // The placeholder's text, typed into the box, fits the box without scrolling it.
  await reason.fill(placeholder);
  const fit = await reason.evaluate((input) => ({ scroll: input.scrollWidth, client: input.clientWidth }));
  expect(fit.scroll).toBeLessThanOrEqual(fit.client);
  await reason.fill("");
  expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
  await page.screenshot({ path: "test-results/screens/phone-layout/identity-reason.png" });
});

test("on a phone a user's and an agent's name beside the email or slug wrap between words", async ({ page }) => {
  // As long as the email the review saw ("olivia.operator@example.com"), whose line ended inside "Olivia".
  const email = `${Date.now().toString(36).slice(-6)}.operator@example.com`;
  expect(
    (await apiCall("POST", "/api/v1/users", { email, name: "Olivia Operator", role: "operator", password: "operator-pass-1" })).status,
  ).toBe(201);
  const agent = await newAgent({ name: uniqueName("phone-atlas"), displayName: "Coordinator of the payments swarm" });
  await signIn(page);
  await page.setViewportSize(PHONE);

  await page.goto("/settings");
  const user = page.getByTestId("users-table").locator("td", { hasText: email });
  // A space parts the two (without one they were a single word to the line breaker, and to a copy).
  await expect(user).toHaveText(new RegExp(`^${email.replaceAll(".", "\\.")} Olivia Operator`));
  expect(await splitWords(user.getByTestId("user-name"))).toEqual([]);

  await page.goto("/agents");
  const cell = page.getByTestId("agents-table").locator("td", { hasText: agent.name });
  await expect(cell).toHaveText(`${agent.name} Coordinator of the payments swarm`);
  expect(await splitWords(cell.getByTestId("agent-list-display-name"))).toEqual([]);
  expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
});

test("the audit log's filter box shows its whole placeholder on a desktop and a phone", async ({ page }) => {
  await signIn(page);
  for (const size of [{ width: 1280, height: 800 }, PHONE]) {
    await page.setViewportSize(size);
    await page.goto("/audit");
    const filter = page.getByLabel("Filter by action");
    const placeholder = (await filter.getAttribute("placeholder")) ?? "";
    // It gives an example of a prefix and of a whole action.
    expect(placeholder).toMatch(/e\.g\. agent or \w+\.\w+/);
    // Typed into the box, the placeholder's text fits without scrolling it (it was cut at "config.updat", and "conf" on a phone).
    await filter.fill(placeholder);
    const fit = await filter.evaluate((input) => ({ scroll: input.scrollWidth, client: input.clientWidth }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.client);
    await filter.fill("");
  }
});

test("on a phone the memory search box shows its whole placeholder", async ({ page }) => {
  await signIn(page);
  await page.setViewportSize(PHONE);
  await page.goto("/memory");
  const search = page.getByTestId("memory-search");
  const placeholder = (await search.getAttribute("placeholder")) ?? "";
  expect(placeholder).toMatch(/^e\.g\. /);
  // (It was cut at "Search memories, e.g. flaky".)
  await search.fill(placeholder);
  const fit = await search.evaluate((input) => ({ scroll: input.scrollWidth, client: input.clientWidth }));
  expect(fit.scroll).toBeLessThanOrEqual(fit.client);
});
