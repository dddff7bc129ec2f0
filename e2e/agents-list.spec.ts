// The agents list at a 1280 px desktop with a long agent name and a display name
// beside it: the short columns (last seen, setup) keep their words on one line
// instead of being squeezed into a narrow column of two; on a 390 px phone the page
// scrolls only up and down.
import type { Locator } from "@playwright/test";
import { apiCall, expect, signIn, test, uniqueName } from "./support/fixtures";

/** How many lines the words of `text` take on screen (its text has one rectangle per line). */
const linesOf = (text: Locator) =>
  text.evaluate((element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    return range.getClientRects().length;
  });

test("the agents list keeps 'last seen' and 'setup' on one line beside a long name", async ({ page }) => {
  const name = `${uniqueName("payments-monolith-refactoring")}-eu`.slice(0, 48);
  const created = await apiCall("POST", "/api/v1/agents", { name, displayName: "Payments monolith refactoring specialist (EU west)" });
  expect(created.status).toBe(201);
  const token = await apiCall("POST", `/api/v1/agents/${created.body.agent.id}/tokens`, { name: "list" });
  expect(
    (await apiCall("POST", "/api/worker/register", { version: "1.0.0", hostname: "build-01", harness: "command" }, token.body.token))
      .status,
  ).toBe(200);

  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page);
  await page.goto("/agents");
  const row = page.getByTestId("agents-table").locator("tr", { has: page.getByRole("link", { name, exact: true }) });
  const lastSeen = row.locator('td[data-label="Last seen"] time');
  await expect(lastSeen).toHaveText(/ago|just now/);
  expect(await linesOf(lastSeen)).toBe(1);
  const setup = row.locator('td[data-label="Setup"] span');
  await expect(setup).toHaveText("not run yet");
  expect(await linesOf(setup)).toBe(1);
  expect(await linesOf(page.getByRole("columnheader", { name: "Security profile" }))).toBe(1);

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(row).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
});
