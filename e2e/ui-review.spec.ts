// What a UI review found, checked in the browser: the proposal diff on a phone, the
// dashboard when its APIs fail, dialogs above the sidebar, pages that fit a 390 px
// phone, the task page with long texts, 404 pages, editors without Monaco, the dark
// danger button's contrast, and the memory health before any search.
import type { Page } from "@playwright/test";
import { identityFile, newAgent, workerToken } from "./identity-support";
import { apiCall, expect, signIn, test, uniqueName } from "./support/fixtures";

test.describe.configure({ timeout: 120_000 });

const PHONE = { width: 390, height: 844 };

async function pageWidth(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

/** A task for `agentId` that its worker claimed and failed with `reason`. */
async function failedTask(agentId: string, title: string, description: string, reason: string) {
  const token = workerToken(agentId);
  const created = await apiCall<{ task: { id: string } }>("POST", "/api/v1/tasks", { title, description, agentId });
  expect(created.status).toBe(201);
  const poll = await apiCall("GET", "/api/worker/poll?waitMs=3000", undefined, token);
  expect(poll.body.task.id).toBe(created.body.task.id);
  expect((await apiCall("POST", `/api/worker/tasks/${created.body.task.id}/fail`, { failureReason: reason }, token)).status).toBe(200);
  return created.body.task.id;
}

test("on a phone the proposal diff is one column and opens at the change", async ({ page }) => {
  const agent = await newAgent({ securityProfile: "standard" });
  const lines = Array.from({ length: 200 }, (_, i) => `Line ${i + 1} of a long soul file.`);
  const base = await identityFile(agent.id, "soul");
  const saved = await apiCall("PUT", `/api/v1/agents/${agent.id}/identity/soul`, {
    content: `${lines.join("\n")}\n`,
    baseVersionId: base.versionId,
  });
  expect(saved.status).toBe(200);
  const current = await identityFile(agent.id, "soul");
  lines[159] = "The one changed line, far down the file.";
  const proposed = await apiCall<{ proposalId: string }>(
    "PUT",
    "/api/worker/identity/soul",
    { content: `${lines.join("\n")}\n`, baseVersionId: current.versionId, reason: "one line", trigger: "agent" },
    workerToken(agent.id),
  );
  expect(proposed.status).toBe(202);

  await signIn(page);
  await page.setViewportSize(PHONE);
  await page.goto("/proposals");
  await page.getByTestId(`proposal-${proposed.body.proposalId}`).click();
  const diff = page.getByTestId("proposal-diff");
  // The change is drawn without scrolling (the unchanged lines before it are folded).
  await expect(diff.locator(".editor.modified .view-line").filter({ hasText: "far down" }).first()).toBeInViewport({ timeout: 30_000 });
  // One column across the screen (beside its two line-number gutters), not two of ~170 px.
  const width = (await diff.locator(".editor.modified").boundingBox())?.width ?? 0;
  expect(width).toBeGreaterThan(200);
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "test-results/screens/ui-review/proposal-phone.png" });
});

test("the dashboard says when its data could not be loaded, section by section", async ({ page }) => {
  await signIn(page);
  await page.route(/\/api\/v1\/(agents|tasks|metrics\/tasks)(\?|$)/, (route) =>
    route.fulfill({
      status: 500,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "internal", message: "Database unavailable" } }),
    }),
  );
  await page.goto("/");
  await expect(page.getByTestId("agents-error")).toContainText("Database unavailable", { timeout: 20_000 });
  await expect(page.getByTestId("trends-error")).toContainText("Database unavailable");
  await expect(page.getByTestId("attention-error")).toContainText("Database unavailable");
  await expect(page.getByText("No agents yet")).toHaveCount(0);
  // No made-up zeros: the tiles whose data failed say so.
  await expect(page.getByTestId("attention-offline-count")).toHaveText("–");
  await expect(page.getByTestId("attention-offline")).toContainText("could not be loaded");
  await expect(page.getByTestId("attention-failed-count")).toHaveText("–");
  await page.screenshot({ path: "test-results/screens/ui-review/dashboard-errors.png" });
});

test("without Monaco the identity editor is a text box that still saves", async ({ page }) => {
  const agent = await newAgent();
  await page.route("**/monaco/vs/**", (route) => route.abort());
  await signIn(page);
  await page.goto(`/agents/${agent.id}/identity`);
  await expect(page.getByTestId("editor-load-error")).toBeVisible({ timeout: 30_000 });
  const box = page.getByTestId("identity-editor").getByTestId("plain-editor");
  await expect(box).toHaveValue(/SOUL/);
  await box.fill("# SOUL.md\n\nSaved without Monaco.\n");
  await page.getByTestId("identity-save").click();
  await expect(page.getByText("Saved SOUL.md")).toBeVisible();
  expect((await identityFile(agent.id, "soul")).content).toBe("# SOUL.md\n\nSaved without Monaco.\n");
  await expect(page.getByText("Loading editor…")).toHaveCount(0);
});
