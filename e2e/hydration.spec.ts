// Boxes and buttons used before the page's scripts have run (a slow network, a fast
// typist): what was typed stays, and the page acts on it once it runs; a button that
// needs the scripts cannot be clicked until then. (The task search is covered in
// tasks.spec.ts.)
import { apiCall, expect, fillBeforeScripts, openBeforeScripts, signIn, test, uniqueName } from "./support/fixtures";

test("a memory search typed before the page has loaded is kept and searched", async ({ page }) => {
  const marker = `osprey${Date.now().toString(36)}`;
  const created = await apiCall("POST", "/api/v1/memories", {
    items: [
      { name: `Cache ${marker} warmup`, content: `Warm the ${marker} cache before the load test.`, scope: "swarm", source: "manual" },
    ],
  });
  expect(created.status).toBe(201);
  await signIn(page);

  const search = page.getByTestId("memory-search");
  await fillBeforeScripts(page, "/memory", search, `${marker} cache warmup`);

  // The page runs and loads its list (a render of its own), and the text is still there.
  await expect(page.getByTestId("memory-list")).toContainText(`Cache ${marker} warmup`);
  await expect(search).toHaveValue(`${marker} cache warmup`);
  await page.getByTestId("memory-search-submit").click();
  await expect(page.getByTestId("memory-results").getByTestId("memory-row").first()).toContainText(`Cache ${marker} warmup`);
  // The search is in the URL: a reload (or the link, shared) shows the same results.
  await expect(page).toHaveURL(new RegExp(`/memory\\?q=${marker}\\+cache\\+warmup$`));
  await page.reload();
  await expect(search).toHaveValue(`${marker} cache warmup`);
  await expect(page.getByTestId("memory-results").getByTestId("memory-row").first()).toContainText(`Cache ${marker} warmup`);
  // Clearing the search takes it out of the URL.
  await page.getByRole("button", { name: "Clear" }).click();
  await expect(page.getByTestId("memory-list")).toBeVisible();
  await expect(page).toHaveURL(/\/memory$/);
});

test("a memory search submitted with Enter before the page has loaded is run", async ({ page }) => {
  const marker = `heron${Date.now().toString(36)}`;
  const created = await apiCall("POST", "/api/v1/memories", {
    items: [{ name: `Retry ${marker} uploads`, content: `Retry the ${marker} uploads with backoff.`, scope: "swarm", source: "manual" }],
  });
  expect(created.status).toBe(201);
  await signIn(page);

  // Without the scripts, Enter submits the form as the browser does: a page load.
  const search = page.getByTestId("memory-search");
  const mode = page.getByTestId("memory-filter-mode");
  await fillBeforeScripts(page, "/memory", search, `${marker} uploads`, async () => {
    await mode.selectOption("keyword");
    await search.press("Enter");
    await page.waitForURL(/\/memory\?q=/, { waitUntil: "commit" });
  });

  // The page that comes back runs that search, in the mode picked, with both still shown.
  await expect(page.getByTestId("memory-results").getByTestId("memory-row").first()).toContainText(`Retry ${marker} uploads`);
  await expect(page.getByText("Answered by keyword search (keyword requested)")).toBeVisible();
  await expect(search).toHaveValue(`${marker} uploads`);
  await expect(mode).toHaveValue("keyword");
});

test("a metrics date typed before the page has loaded is kept and bounds the range", async ({ page }) => {
  const agent = (await apiCall("POST", "/api/v1/agents", { name: uniqueName("early") })).body.agent as { id: string };
  await signIn(page);

  const from = page.getByLabel("From", { exact: true });
  await fillBeforeScripts(page, "/metrics", from, "2024-06-01");

  // Once the agents have come (a render of the page's own), the date is still there
  // and is the range's start: the end's picker offers nothing before it.
  await expect(page.getByTestId("metrics-agent").locator(`option[value="${agent.id}"]`)).toBeAttached();
  await expect(from).toHaveValue("2024-06-01");
  await expect(page.getByLabel("To", { exact: true })).toHaveAttribute("min", "2024-06-01");
  await expect(page.getByTestId("metrics-filter")).not.toContainText("The start is after the end");
});

test("a button that acts through the page's scripts is disabled until they run, then works", async ({ page }) => {
  await signIn(page);
  const release = await openBeforeScripts(page, "/settings");
  // In the server's HTML a click on it could only be lost, so it cannot be clicked yet.
  const newUser = page.getByTestId("new-user");
  await expect(newUser).toBeVisible();
  await expect(newUser).toBeDisabled();
  release();
  await expect(newUser).toBeEnabled();
  await newUser.click();
  await expect(page.getByTestId("new-user-form").getByLabel("Email")).toBeVisible();
});
