// What a UI review found, checked in the browser: the proposal diff on a phone, the
// dashboard when its APIs fail, dialogs above the sidebar, pages that fit a 390 px
// phone, the task page with long texts, 404 pages, editors without Monaco, the dark
// danger button's contrast, and the memory health before any search.
import type { Page } from "@playwright/test";
import { identityFile, newAgent, workerToken } from "./identity-support";
import { apiCall, expect, signIn, test, toast, uniqueName } from "./support/fixtures";

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
  // A long queue from other agents: on a phone the list stands above the review.
  for (let a = 0; a < 4; a++) {
    const other = await newAgent({ securityProfile: "standard" });
    const token = workerToken(other.id);
    for (const slug of ["soul", "identity", "user"]) {
      const { versionId } = await identityFile(other.id, slug);
      const queued = await apiCall(
        "PUT",
        `/api/worker/identity/${slug}`,
        { content: `Queued ${slug}\n`, baseVersionId: versionId, reason: "queued", trigger: "agent" },
        token,
      );
      expect(queued.status).toBe(202);
    }
  }

  await signIn(page);
  await page.setViewportSize(PHONE);
  await page.goto("/proposals");
  // The review's own request answers a moment later, as on a busy server or a slow phone network:
  // the pick scrolls while the review still says "Loading proposal…".
  await page.route(`**/api/v1/proposals/${proposed.body.proposalId}`, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await route.continue();
  });
  await page.getByTestId(`proposal-${proposed.body.proposalId}`).click();
  // The pick brings the review, below the list, into view and gives it the focus.
  const review = page.getByRole("region", { name: "Selected proposal" });
  await expect(review).toBeFocused();
  // It stands at the top of the screen, under the bar, not a few lines above the bottom with the list
  // still filling the screen (a review still loading is short; the page must still be able to scroll to it).
  const diff = page.getByTestId("proposal-diff");
  await expect(diff).toBeVisible({ timeout: 30_000 });
  const reviewTop = async () => (await review.boundingBox())?.y ?? -1;
  await expect.poll(reviewTop).toBeGreaterThanOrEqual(0);
  await expect.poll(reviewTop).toBeLessThan(PHONE.height / 3);
  const changed = diff.locator(".editor.modified .view-line").filter({ hasText: "far down" }).first();
  await expect(changed).toBeVisible({ timeout: 30_000 });
  // The change is drawn inside the diff's box without scrolling it (the unchanged lines before it are folded).
  await expect
    .poll(
      async () => {
        const [box, line] = [await diff.boundingBox(), await changed.boundingBox()];
        return Boolean(box && line && line.y >= box.y && line.y + line.height <= box.y + box.height);
      },
      { timeout: 30_000 },
    )
    .toBe(true);
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

test("a task's long description, long failure and cancel dialog, on a desktop and a phone", async ({ page }) => {
  const agent = await newAgent();
  const path = `/srv/work/${"very-long-directory-name/".repeat(12)}src/index.ts`;
  const reason = `ENOENT: no such file or directory, open '${path}' ${"while building the project again and again ".repeat(14)}`;
  const description = Array.from({ length: 120 }, (_, i) => `Paragraph ${i + 1}: what needs doing, in some detail.`).join("\n\n");
  const failed = await failedTask(agent.id, uniqueName("long"), description, reason);
  const open = await apiCall<{ task: { id: string } }>("POST", "/api/v1/tasks", { title: uniqueName("open"), agentId: agent.id });

  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await page.goto(`/tasks/${failed}`);
  await expect(page.getByTestId("task-failure")).toContainText("ENOENT");
  // The description is capped, and opens on request.
  const toggle = page.getByTestId("task-description-toggle");
  await expect(toggle).toHaveText("Show more");
  expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(2500);
  // The timeline card is as tall as its events, not stretched to the description.
  const timeline = await page.getByTestId("task-timeline").boundingBox();
  expect(timeline?.height ?? 0).toBeLessThan(600);
  // The failure the server cut to 500 characters ends in an ellipsis.
  const failedEvent = page.getByTestId("task-event-message").filter({ hasText: "Failed:" });
  await expect(failedEvent).toHaveText(/…$/);
  await toggle.click();
  await expect(toggle).toHaveText("Show less");
  await expect(page.getByTestId("task-description")).toContainText("Paragraph 120");

  // On a phone: nothing wider than the screen.
  await page.setViewportSize(PHONE);
  await page.goto(`/tasks/${failed}`);
  await expect(page.getByTestId("task-failure")).toContainText("ENOENT");
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "test-results/screens/ui-review/task-failed-phone.png", fullPage: true });

  // The cancel confirmation: its dismiss button says what it keeps, and the dialog covers the sidebar.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/tasks/${open.body.task.id}`);
  await page.getByTestId("task-cancel").click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog.getByRole("button", { name: "Keep task" })).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel task" })).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel", exact: true })).toHaveCount(0);
  // (An open modal dialog hides the rest of the page from the accessibility tree, so the sidebar is found by its element.)
  const sidebar = await page.locator("aside").first().boundingBox();
  expect(sidebar).not.toBeNull();
  const onTop = await page.evaluate(
    ({ x, y }) => {
      const element = document.elementFromPoint(x, y);
      return { inSidebar: Boolean(element?.closest("aside")), inDialogLayer: Boolean(element?.closest("[data-state=open]")) };
    },
    { x: (sidebar?.x ?? 0) + 20, y: (sidebar?.y ?? 0) + 20 },
  );
  expect(onTop).toEqual({ inSidebar: false, inDialogLayer: true });
  // Focus is inside the dialog, and Escape keeps the task.
  expect(await page.evaluate(() => Boolean(document.activeElement?.closest("[role=alertdialog]")))).toBe(true);
  await page.screenshot({ path: "test-results/screens/ui-review/cancel-dialog.png" });
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  expect((await apiCall("GET", `/api/v1/tasks/${open.body.task.id}`)).body.task.status).not.toBe("cancelled");

  // Dark mode: the danger button's white text reads at 4.5:1 or better (WCAG AA).
  await page.emulateMedia({ colorScheme: "dark" });
  await page.evaluate(() => localStorage.removeItem("theme"));
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  const ratio = await page.getByTestId("task-cancel").evaluate((button) => {
    const rgb = (value: string) => (value.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const luminance = (channels: number[]) => {
      const [R = 0, G = 0, B = 0] = channels.map((c) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * R + 0.7152 * G + 0.0722 * B;
    };
    const style = getComputedStyle(button);
    const text = luminance(rgb(style.color));
    const fill = luminance(rgb(style.backgroundColor));
    return (Math.max(text, fill) + 0.05) / (Math.min(text, fill) + 0.05);
  });
  expect(ratio).toBeGreaterThanOrEqual(4.5);
});

test("the metrics page with a long failure reason fits a phone", async ({ page }) => {
  const agent = await newAgent();
  const reason = `Error: cannot resolve /srv/${"deeply/nested/module/".repeat(20)}index.ts from the build step`;
  await failedTask(agent.id, uniqueName("metric"), "", reason);
  await page.setViewportSize(PHONE);
  await signIn(page);
  await page.goto("/metrics");
  await expect(page.getByText("Top failure reasons this week")).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
});

test("settings and audit tables keep their columns and buttons on a phone's screen", async ({ page }) => {
  await page.setViewportSize(PHONE);
  await signIn(page);
  await page.goto("/settings");
  for (const table of ["users-table", "sessions-table", "api-tokens-table"]) {
    const buttons = page.getByTestId(table).getByRole("button");
    await expect(buttons.first()).toBeVisible();
    for (const box of await buttons.evaluateAll((all) => all.map((b) => b.getBoundingClientRect().right))) {
      expect(box, table).toBeLessThanOrEqual(390);
    }
  }
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "test-results/screens/ui-review/settings-phone.png", fullPage: true });

  await page.goto("/audit");
  const row = page.getByTestId("audit-row").first();
  await expect(row).toBeVisible();
  // Every cell of a row (its action, target and details too) is on the screen.
  for (const right of await row.locator("td").evaluateAll((cells) => cells.map((c) => c.getBoundingClientRect().right))) {
    expect(right).toBeLessThanOrEqual(390);
  }
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
});

test("unknown addresses, tasks and agents answer 404 with a page leading back", async ({ page }) => {
  await signIn(page);
  const unknown = await page.goto("/no-such-page");
  expect(unknown?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await page.getByTestId("status-home-link").click();
  await expect(page).toHaveURL(/\/$/);

  const task = await page.goto("/tasks/no-such-task");
  expect(task?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "No such task" })).toBeVisible();
  await page.getByTestId("back-to-tasks").click();
  await expect(page).toHaveURL(/\/tasks$/);

  const agent = await page.goto("/agents/no-such-agent");
  expect(agent?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "No such agent" })).toBeVisible();
  await page.setViewportSize(PHONE);
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await page.getByTestId("back-to-agents").click();
  await expect(page).toHaveURL(/\/agents$/);
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
  await expect(toast(page, "Saved SOUL.md")).toBeVisible();
  expect((await identityFile(agent.id, "soul")).content).toBe("# SOUL.md\n\nSaved without Monaco.\n");
  await expect(page.getByText("Loading editor…")).toHaveCount(0);
});

test("before any search, the share answered with embeddings is a dash, not 0 % in orange", async ({ page }) => {
  // Whatever other tests searched: this page sees a history with no search.
  await page.route("**/api/v1/memories/health?*", async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    body.perDay = body.perDay.map((day: Record<string, unknown>) => ({
      ...day,
      searches: 0,
      injections: 0,
      withEmbeddings: 0,
      keywordOnly: 0,
    }));
    await route.fulfill({ response, json: body });
  });
  await signIn(page);
  await page.goto("/memory");
  const share = page.getByTestId("health-embedded-share");
  await expect(share).toHaveText("–");
  await expect(share).not.toHaveClass(/text-warn/);
});

test("without Monaco the setup script is a text box that still saves", async ({ page }) => {
  await page.route("**/monaco/vs/**", (route) => route.abort());
  await signIn(page);
  await page.goto("/settings");
  const box = page.getByTestId("code-editor").getByTestId("plain-editor");
  await expect(box).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("code-editor").getByTestId("editor-load-error")).toBeVisible();
  await box.fill("#!/bin/sh\necho saved without Monaco\n");
  await expect(page.getByTestId("unsaved-changes")).toBeVisible();
  await page.getByTestId("save-setup-script").click();
  await expect(page.getByTestId("unsaved-changes")).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("code-editor").getByTestId("plain-editor")).toHaveValue(/saved without Monaco/, { timeout: 30_000 });
});
