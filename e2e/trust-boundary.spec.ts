// Issue 12 in real Chromium: the per-file rule table on the Security profile panel,
// identity rights granted on a new task and changed on its page, the bootstrap choice
// when creating an agent, and capabilities.yaml problems marked in the editor (typed
// as one flow-style line: Monaco re-indents typed block YAML), with the upgrade of a
// file in the older shape offered.
import { identityFile, newAgent, replaceEditorText } from "./identity-support";
import { apiCall, expect, signIn, test, toast, uniqueName } from "./support/fixtures";

test.describe.configure({ timeout: 120_000 });

test("the Security profile panel shows each file's rule, the agent's profile highlighted", async ({ page }) => {
  const agent = await newAgent({ securityProfile: "paranoid" });
  await signIn(page);
  await page.goto(`/agents/${agent.id}`);
  const table = page.getByTestId("profile-rules");
  await expect(table).toBeVisible();
  await expect(table.locator("th[data-current=true]")).toHaveText("paranoid");
  await expect(table.getByTestId("profile-rule-CLAUDE")).toContainText("refused");
  await expect(table.getByTestId("profile-rule-SETUP_SCRIPT")).toContainText("proposal");
  await expect(table.getByTestId("profile-rule-AGENT")).toContainText("locked");
  // The footnote's command is code, not text between backticks.
  await expect(table.locator("code", { hasText: "swarm identity propose" })).toBeVisible();
  await expect(table).not.toContainText("`");
  // On a wide screen every profile is a column, and nothing needs unfolding.
  for (const profile of ["paranoid", "standard", "power", "granted task"]) {
    await expect(table.locator("thead th", { hasText: profile })).toBeVisible();
  }
  await expect(table.getByTestId("profile-rules-compare")).toBeHidden();
  await table.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "test-results/trust-profile-table.png", fullPage: true });
  const fits = () => table.evaluate((element) => element.scrollWidth <= element.clientWidth);
  const header = (profile: string) => table.locator("thead th", { hasText: profile });
  // On a laptop (1280 px, and 1100 px where the panel takes the whole row) the grant's
  // column is not cut at the card's edge.
  for (const width of [1280, 1100]) {
    await page.setViewportSize({ width, height: 800 });
    await table.scrollIntoViewIfNeeded();
    await expect(header("granted task")).toBeInViewport({ ratio: 1 });
    expect(await fits()).toBe(true);
  }

  // On a phone the agent's own profile and the grant fit the screen, not cut at its edge.
  await page.setViewportSize({ width: 390, height: 844 });
  await table.scrollIntoViewIfNeeded();
  await expect(header("paranoid")).toBeInViewport({ ratio: 1 });
  await expect(header("granted task")).toBeInViewport({ ratio: 1 });
  await expect(table.getByTestId("profile-rule-CLAUDE").getByText("refused")).toBeInViewport({ ratio: 1 });
  await expect(header("standard")).toBeHidden();
  await expect(header("power")).toBeHidden();
  expect(await fits()).toBe(true);
  await page.screenshot({ path: "test-results/trust-profile-table-phone.png", fullPage: true });
  // The other two profiles are a tap away; the table then scrolls sideways inside its card.
  const compare = table.getByTestId("profile-rules-compare");
  await compare.click();
  await expect(header("standard")).toBeVisible();
  await expect(header("power")).toBeAttached();
  await expect(table.getByTestId("profile-rule-CLAUDE")).toContainText("proposal");
  expect(await fits()).toBe(false);
  await expect(compare).toHaveText("Show only paranoid");
  await compare.click();
  await expect(header("standard")).toBeHidden();
  expect(await fits()).toBe(true);
});

test("an operator grants a task identity rights, sees them on the task and changes them", async ({ page }) => {
  const agent = await newAgent({ securityProfile: "paranoid" });
  await signIn(page);
  await page.goto("/tasks");
  await page.getByTestId("new-task").click();
  await page.locator("#task-title").fill("Sharpen your soul");
  await page.locator("#task-agent").selectOption(agent.id);
  await page.getByTestId("new-task-grant").getByText("SOUL.md").click();
  await page.screenshot({ path: "test-results/trust-new-task-grant.png" });
  await page.getByTestId("create-task-submit").click();
  const card = page.getByTestId("task-identity-grant");
  await expect(card.getByTestId("grant-list")).toContainText("SOUL.md");
  await card.getByTestId("grant-edit").click();
  await card.getByText("CLAUDE.md").click();
  await card.getByTestId("grant-save").click();
  await expect(card.getByTestId("grant-list")).toContainText("CLAUDE.md");
  await expect(
    page.getByText("Identity rights granted: SOUL, CLAUDE").or(page.getByText("Identity rights granted: CLAUDE, SOUL")),
  ).toBeVisible();
  await page.screenshot({ path: "test-results/trust-task-grant.png", fullPage: true });
});

test("creating an agent offers templates or a bootstrap ritual; the choice shapes its files", async ({ page }) => {
  await signIn(page);
  await page.goto("/agents");
  await page.getByTestId("new-agent").click();
  const name = uniqueName("boot");
  await page.locator("#agent-name").fill(name);
  await page.getByTestId("identity-start-bootstrap").check();
  await page.screenshot({ path: "test-results/trust-create-agent.png" });
  await page.getByRole("button", { name: "Create agent" }).click();
  await page.waitForURL(/\/agents\/[^/]+$/);
  const id = page.url().split("/").pop() as string;
  expect((await identityFile(id, "soul")).exists).toBe(false);
  expect((await identityFile(id, "bootstrap")).exists).toBe(true);
  const preview = await apiCall("GET", `/api/v1/agents/${id}/prompt`);
  expect(preview.body.bootstrap).toBe(true);
});

test("capabilities.yaml problems are marked in the editor and block the save", async ({ page }) => {
  const agent = await newAgent();
  await signIn(page);
  await page.goto(`/agents/${agent.id}/identity`);
  await page.getByTestId("identity-tab-capabilities").click();
  await expect(page.locator("[data-testid=identity-editor] .monaco-editor")).toBeVisible({ timeout: 30_000 });
  await replaceEditorText(page, "[data-testid=identity-editor]", "{tools: {allow: [Read, web_fetch]}, limits: {max_task_minutes: 0}}\n");
  const issues = page.getByTestId("capabilities-issues");
  await expect(issues).toContainText('line 1: tools.allow.1: unknown tool "web_fetch": did you mean WebFetch?');
  await expect(issues).toContainText("line 1: limits.max_task_minutes");
  await expect(page.locator("[data-testid=identity-editor] .squiggly-error").first()).toBeVisible();
  await expect(page.getByTestId("identity-save")).toBeDisabled();
  await page.screenshot({ path: "test-results/trust-capabilities-errors.png" });
  // Read as the older shape (lowercase tool names), the same cage in the current shape is offered, notes and all.
  const upgrade = page.getByTestId("capabilities-upgrade");
  await expect(upgrade).toContainText('tools.allow: "web_fetch" read as WebFetch');
  await expect(upgrade).toContainText("limits.max_task_minutes: 0 read as 1");
  await upgrade.getByTestId("capabilities-use-upgrade").click();
  await expect(issues).toBeHidden();
  await page.getByTestId("identity-save").click();
  await expect(toast(page, "Saved capabilities.yaml")).toBeVisible();
  const upgraded = (await identityFile(agent.id, "capabilities")).content;
  expect(upgraded).toContain("- WebFetch");
  expect(upgraded).toContain("max_task_minutes: 1");
  await replaceEditorText(page, "[data-testid=identity-editor]", "{tools: {allow: [Read, WebFetch]}, limits: {max_task_minutes: 30}}\n");
  await expect(issues).toBeHidden();
  await page.getByTestId("identity-save").click();
  await expect.poll(async () => (await identityFile(agent.id, "capabilities")).content).toContain("max_task_minutes: 30");
});
