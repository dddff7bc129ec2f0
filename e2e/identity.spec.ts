// The identity screens in real Chromium: edit SOUL.md in Monaco and save, compare
// two versions in the diff editor, restore one, a stale save shown as a conflict
// with a merge path, the prompt preview and re-bootstrap's confirmation.

import { identityFile, newAgent, replaceEditorText } from "./identity-support";
import { apiCall, expect, signIn, test, toast } from "./support/fixtures";

// Monaco is heavy and the test machine is shared: these are long user journeys.
test.describe.configure({ timeout: 120_000 });

test("edit SOUL.md in Monaco, save with a reason, compare versions, restore one", async ({ page }) => {
  const agent = await newAgent();
  const template = await identityFile(agent.id, "soul");
  await signIn(page);
  await page.goto(`/agents/${agent.id}/identity`);
  await expect(page.getByTestId("identity-tab-soul")).toHaveAttribute("aria-selected", "true");
  // The first Monaco load of a run can take a while on a busy machine.
  await expect(page.locator("[data-testid=identity-editor] .monaco-editor")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("identity-version")).toContainText("version 1");
  await expect(page.getByTestId("identity-save")).toBeDisabled();

  await replaceEditorText(page, "[data-testid=identity-editor]", "# SOUL.md\n\nI write small, tested changes and say what I did.\n");
  await expect(page.getByText("unsaved changes").first()).toBeVisible();
  await page.getByTestId("identity-reason").fill("Sharper values");
  await page.getByTestId("identity-save").click();
  await expect(toast(page, "Saved SOUL.md")).toBeVisible();
  await expect(page.getByTestId("identity-version")).toContainText("version 2");
  expect((await identityFile(agent.id, "soul")).content).toBe("# SOUL.md\n\nI write small, tested changes and say what I did.\n");

  const history = page.getByTestId("identity-history");
  await expect(history.getByTestId("version-2")).toContainText("Sharper values");
  await expect(history.getByTestId("version-2")).toContainText("admin@test.local");
  await expect(history.getByTestId("version-2")).toContainText("editor");
  await history.getByTestId("select-version-1").check();
  await history.getByTestId("select-version-2").check();
  await history.getByTestId("compare-versions").click();
  const diff = page.getByTestId("version-diff");
  await expect(diff.locator(".monaco-diff-editor")).toBeVisible({ timeout: 30_000 });
  await expect(diff.locator(".editor.modified")).toContainText("I write small, tested changes");
  await expect(diff.locator(".editor.original")).toContainText("Core Values");
  await page.screenshot({ path: "test-results/identity-compare.png" });
  await page.keyboard.press("Escape");

  await history.getByTestId("restore-version-1").click();
  await expect(page.getByRole("alertdialog")).toContainText("new version 3 with the content of version 1");
  await page.getByTestId("confirm-action").click();
  await expect(page.getByText("Restored version 1 of SOUL.md as version 3")).toBeVisible();
  await expect(history.getByTestId("version-3")).toContainText("restore");
  await expect(page.getByTestId("identity-version")).toContainText("version 3");
  expect((await identityFile(agent.id, "soul")).content).toBe(template.content);
});

test("a stale save shows who saved first, their changes beside mine, and saves the merge", async ({ page }) => {
  const agent = await newAgent();
  await signIn(page);
  await page.goto(`/agents/${agent.id}/identity`);
  await replaceEditorText(page, "[data-testid=identity-editor]", "# SOUL.md\n\nMine: patient and precise.\n");

  // Someone else saves first, through the API.
  const base = await identityFile(agent.id, "soul");
  const theirs = await apiCall("PUT", `/api/v1/agents/${agent.id}/identity/soul`, {
    content: "# SOUL.md\n\nTheirs: fast and bold.\n",
    baseVersionId: base.versionId,
  });
  expect(theirs.status).toBe(200);

  await page.getByTestId("identity-save").click();
  const banner = page.getByTestId("stale-conflict");
  await expect(banner).toContainText("admin@test.local saved SOUL.md (version 2) while you were editing");
  await expect(banner).toContainText("Your text is not saved yet");
  expect((await identityFile(agent.id, "soul")).content).toBe("# SOUL.md\n\nTheirs: fast and bold.\n");
  await page.screenshot({ path: "test-results/identity-conflict-banner.png" });

  await page.getByTestId("see-their-changes").click();
  const diff = page.getByTestId("conflict-diff");
  await expect(diff.locator(".editor.original")).toContainText("Theirs: fast and bold.", { timeout: 30_000 });
  await expect(diff.locator(".editor.modified")).toContainText("Mine: patient and precise.");
  await page.screenshot({ path: "test-results/identity-conflict-diff.png" });
  await replaceEditorText(page, "[data-testid=conflict-diff] .editor.modified", "# SOUL.md\n\nMerged: patient, precise, and bold.\n");
  await page.getByTestId("save-merged").click();
  await expect(toast(page, "Saved SOUL.md")).toBeVisible();
  await expect(banner).toBeHidden();
  const after = await identityFile(agent.id, "soul");
  expect(after.content).toBe("# SOUL.md\n\nMerged: patient, precise, and bold.\n");
  expect(after.versionNumber).toBe(3);
  // The editor now holds the saved merge, with nothing left unsaved.
  await expect(page.getByTestId("identity-version")).toContainText("version 3");
  await expect(page.locator("[data-testid=identity-editor] .view-lines")).toContainText("Merged: patient, precise, and bold.");
  await expect(page.getByTestId("identity-tab-soul")).not.toContainText("unsaved changes");
});

test("discarding my text after a stale save loads theirs and the conflict notice goes with my text", async ({ page }) => {
  const agent = await newAgent();
  await signIn(page);
  await page.goto(`/agents/${agent.id}/identity`);
  await replaceEditorText(page, "[data-testid=identity-editor]", "# SOUL.md\n\nMine: patient and precise.\n");
  const base = await identityFile(agent.id, "soul");
  expect(
    (
      await apiCall("PUT", `/api/v1/agents/${agent.id}/identity/soul`, {
        content: "# SOUL.md\n\nTheirs: fast and bold.\n",
        baseVersionId: base.versionId,
      })
    ).status,
  ).toBe(200);
  await page.getByTestId("identity-save").click();
  const banner = page.getByTestId("stale-conflict");
  await expect(banner).toContainText("Your text is not saved yet");

  await page.getByRole("button", { name: "Discard", exact: true }).click();
  await expect(page.locator("[data-testid=identity-editor] .view-lines")).toContainText("Theirs: fast and bold.");
  await expect(banner).toHaveCount(0);
  await expect(page.getByTestId("see-their-changes")).toHaveCount(0);
});

test("what is typed after a stale save is in the conflict view's side of mine", async ({ page }) => {
  const agent = await newAgent();
  await signIn(page);
  await page.goto(`/agents/${agent.id}/identity`);
  await replaceEditorText(page, "[data-testid=identity-editor]", "# SOUL.md\n\nMine: patient and precise.");
  const base = await identityFile(agent.id, "soul");
  await apiCall("PUT", `/api/v1/agents/${agent.id}/identity/soul`, {
    content: "# SOUL.md\n\nTheirs: fast and bold.\n",
    baseVersionId: base.versionId,
  });
  await page.keyboard.press("ControlOrMeta+S");
  await expect(page.getByTestId("stale-conflict")).toContainText("Your text is not saved yet");
  // Still in the editor, the sentence goes on.
  await page.keyboard.type(" And kind.", { delay: 2 });
  await page.getByTestId("see-their-changes").click();
  const diff = page.getByTestId("conflict-diff");
  await expect(diff.locator(".editor.modified")).toContainText("Mine: patient and precise. And kind.", { timeout: 30_000 });
  await page.getByTestId("save-merged").click();
  await expect(toast(page, "Saved SOUL.md")).toBeVisible();
  await expect(page.getByTestId("stale-conflict")).toBeHidden();
  expect((await identityFile(agent.id, "soul")).content).toBe("# SOUL.md\n\nMine: patient and precise. And kind.");
});

test("switching tabs with unsaved changes asks first; locked files say agents cannot write them", async ({ page }) => {
  const agent = await newAgent();
  await signIn(page);
  await page.goto(`/agents/${agent.id}/identity`);
  await replaceEditorText(page, "[data-testid=identity-editor]", "draft that should not vanish silently");
  await page.getByTestId("identity-tab-agent").click();
  await expect(page.getByRole("alertdialog")).toContainText("SOUL.md has unsaved changes");
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("identity-tab-soul")).toHaveAttribute("aria-selected", "true");
  await page.getByTestId("identity-tab-agent").click();
  await page.getByTestId("confirm-action").click();
  await expect(page.getByTestId("identity-tab-agent")).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("locked-note")).toContainText("Agents cannot write this");
  await page.getByTestId("identity-tab-setup-script").click();
  await expect(page.locator("[data-testid=identity-editor] [data-mode-id]").first()).toHaveAttribute("data-mode-id", "shell");
  expect((await identityFile(agent.id, "soul")).versionNumber).toBe(1);
});

test("prompt preview and re-bootstrap naming exactly what it erases", async ({ page }) => {
  const agent = await newAgent();
  await signIn(page);
  await page.goto(`/agents/${agent.id}/identity`);
  await page.getByTestId("preview-prompt").click();
  const preview = page.getByTestId("prompt-preview");
  await expect(preview).toContainText("normal mode");
  await expect(preview.locator(".monaco-editor")).toContainText("AGENT.md", { timeout: 30_000 });
  await page.keyboard.press("Escape");

  await page.getByTestId("rebootstrap").click();
  await expect(page.getByTestId("rebootstrap-description")).toContainText("This erases SOUL.md, IDENTITY.md and USER.md");
  await expect(page.getByTestId("confirm-action")).toHaveText("Erase and re-bootstrap");
  await page.screenshot({ path: "test-results/identity-rebootstrap.png" });
  await page.getByTestId("confirm-action").click();
  await expect(page.getByText("Re-bootstrapped: archived SOUL.md, IDENTITY.md and USER.md")).toBeVisible();
  expect((await identityFile(agent.id, "soul")).exists).toBe(false);
  await expect(page.getByTestId("identity-version")).toBeHidden();
  await page.getByTestId("preview-prompt").click();
  await expect(page.getByTestId("prompt-preview")).toContainText("bootstrap mode");
  await page.keyboard.press("Escape");

  // The same screens in the dark theme.
  await page.getByTestId("theme-toggle").click();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await page.getByTestId("identity-tab-bootstrap").click();
  await expect(page.locator("[data-testid=identity-editor] .monaco-editor.vs-dark")).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: "test-results/identity-dark.png" });
  await page.goto("/proposals");
  await expect(page.getByTestId("proposal-list").or(page.getByTestId("empty-state"))).toBeVisible();
  await page.screenshot({ path: "test-results/proposals-dark.png" });
  await page.getByTestId("theme-toggle").click();
});

test("the agent page shows the identity panel with the agent's security profile", async ({ page }) => {
  const agent = await newAgent({ securityProfile: "paranoid" });
  await signIn(page);
  await page.goto(`/agents/${agent.id}`);
  const panel = page.getByTestId("identity-panel");
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId("identity-profile")).toContainText(
    "paranoid: the agent's own changes to SOUL, IDENTITY, USER, CLAUDE.md and the setup script are refused",
  );
  await expect(panel.locator("[data-testid=identity-editor] .monaco-editor")).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: "test-results/agent-page-identity.png", fullPage: true });
});

test("a file with no version yet says so in its history, not an empty pane", async ({ page }) => {
  // A bootstrapping agent writes its own SOUL.md in its first task: until then it has no version.
  const agent = await newAgent({ identityStart: "bootstrap" });
  await signIn(page);
  await page.goto(`/agents/${agent.id}/identity`);
  await page.getByTestId("identity-tab-soul").click();
  const history = page.getByTestId("identity-history");
  await expect(history.getByTestId("empty-state")).toContainText("No versions yet");
  await expect(history).toContainText("Every save of SOUL.md");
  await page.getByTestId("identity-tab-identity").click();
  await expect(history).toContainText("Every save of IDENTITY.md");
});

test("on a 1280 px laptop every identity file's tab is on screen, capabilities.yaml too", async ({ page }) => {
  const agent = await newAgent();
  await signIn(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/agents/${agent.id}/identity`);
  const tabs = page.getByRole("tablist", { name: "Identity files" });
  await expect(tabs.getByRole("tab")).toHaveCount(10);
  // The strip scrolled sideways, with capabilities.yaml beyond the card's edge and nothing to say so; now it wraps.
  const strip = await tabs.boundingBox();
  for (const tab of await tabs.getByRole("tab").all()) {
    const box = await tab.boundingBox();
    expect(box && strip && box.x + box.width <= strip.x + strip.width).toBe(true);
  }
  await tabs.getByTestId("identity-tab-capabilities").click();
  await expect(page.getByTestId("locked-note")).toBeVisible();
});
