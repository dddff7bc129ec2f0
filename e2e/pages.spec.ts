// Every page, as an operator sees it on a full load: no console error and no failed
// request in light and in dark (system setting and stored choice), and nothing wider
// than a 390 px phone screen.
import type { Page } from "@playwright/test";
import { newAgent } from "./identity-support";
import { apiCall, expect, signIn, test } from "./support/fixtures";

test.describe.configure({ mode: "serial", timeout: 240_000 });

let page: Page;
const problems: string[] = [];
let pages: string[] = [];

test.beforeAll(async ({ browser }) => {
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => {
    // Navigating away aborts what the previous page still had in flight.
    if (request.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  await signIn(page);
  const agent = await newAgent();
  const task = await apiCall<{ task: { id: string } }>("POST", "/api/v1/tasks", { title: "Check the phone layout", agentId: agent.id });
  const schedules = await apiCall<{ schedules: { id: string }[] }>("GET", "/api/v1/schedules");
  pages = [
    "/",
    "/agents",
    `/agents/${agent.id}`,
    `/agents/${agent.id}/identity`,
    "/proposals",
    "/tasks",
    ...(task.body?.task?.id ? [`/tasks/${task.body.task.id}`] : []),
    "/memory",
    "/metrics",
    "/schedules",
    ...(schedules.body?.schedules?.[0] ? [`/schedules/${schedules.body.schedules[0].id}`] : []),
    "/settings",
    "/audit",
  ];
});
test.afterAll(async () => page.context().close());

async function visitAll(label: string, check?: (path: string) => Promise<void>) {
  for (const path of pages) {
    problems.length = 0;
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    await check?.(path);
    // For looking at: test-results/screens/<label>/<page>.png
    await page.screenshot({ path: `test-results/screens/${label.replace(/\W+/g, "-")}/${path.replace(/\W+/g, "_") || "home"}.png` });
    expect(problems, `${label} ${path}`).toEqual([]);
  }
}

// One test per scheme (each has the describe's time limit): a full round of the pages
// with screenshots takes minutes on a slow machine.
for (const scheme of ["light", "dark"] as const) {
  test(`${scheme} from the system setting: no console error, no failed request`, async () => {
    await page.emulateMedia({ colorScheme: scheme });
    await page.evaluate(() => localStorage.removeItem("theme"));
    await visitAll(`system ${scheme}`, async () => {
      await expect(page.locator("html")).toHaveClass(scheme === "dark" ? /\bdark\b/ : /^(?!.*\bdark\b)/);
    });
  });
}

test("a stored dark choice over a light system setting: no console error, no failed request; the toggle turns it off", async () => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.evaluate(() => localStorage.setItem("theme", "dark"));
  await visitAll("stored dark", async () => {
    await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  });
  await page.getByTestId("theme-toggle").click();
  await expect(page.locator("html")).not.toHaveClass(/\bdark\b/);
});

test("every page fits a 390 px phone: no sideways page scroll, navigation behind a menu button", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "light" });
  await visitAll("390px", async (path) => {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    // Name the widest culprits (elements reaching past the screen whose parent does not), to fix them.
    const culprits =
      width <= 390
        ? []
        : await page.evaluate(() =>
            [...document.querySelectorAll("main *")]
              .filter((el) => el.getBoundingClientRect().right > 391 && (el.parentElement?.getBoundingClientRect().right ?? 0) <= 391)
              .slice(0, 5)
              .map(
                (el) =>
                  `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 80)} (${Math.round(el.getBoundingClientRect().right)}px)`,
              ),
          );
    expect.soft({ path, width, culprits }).toEqual({ path, width: Math.min(width, 390), culprits: [] });
  });
  // The navigation is one tap away and closes once a page is picked.
  await page.goto("/");
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  await page.getByTestId("menu-button").click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tasks" }).click();
  await expect(page).toHaveURL(/\/tasks$/);
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
});

test("a task that does not exist says so (HTTP 404) and leads back to the list", async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const response = await page.goto("/tasks/no-such-task");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "No such task" })).toBeVisible();
  await page.getByTestId("back-to-tasks").click();
  await expect(page).toHaveURL(/\/tasks$/);
});
