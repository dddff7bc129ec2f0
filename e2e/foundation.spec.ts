// The foundation in a real browser: sign-in through the form, agents, worker
// tokens, the global setup script in Monaco (served by the app, no internet),
// the audit log, and screenshots of each page in light and dark.
import path from "node:path";
import type { Page } from "@playwright/test";
import { apiCall, expect, serverInfo, signIn, test, uniqueName } from "./support/fixtures";

const SHOTS = path.join(import.meta.dirname, "..", "test-results", "screens");

async function shoot(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

/** Refuses every request to another origin and remembers it. */
async function offline(page: Page): Promise<string[]> {
  const foreign: string[] = [];
  const own = new URL(serverInfo().baseUrl).origin;
  await page.context().route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("data:") || url.startsWith("blob:") || new URL(url).origin === own) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  return foreign;
}

test("signed out, the dashboard pages send you to the login form", async ({ page }) => {
  await page.goto("/agents");
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await shoot(page, "login");
  await page.getByLabel("Email").fill(serverInfo().adminEmail);
  await page.getByLabel("Password").fill("wrong password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("do not match an active account")).toBeVisible();
});

test("create an agent in the UI, give it a worker token, revoke it", async ({ page }) => {
  // A long walk through three pages and four dialogs.
  test.setTimeout(120_000);
  await signIn(page);
  await page.goto("/agents");
  // Closing the dialog unchanged gives focus back to the button that opened it.
  await page.getByTestId("new-agent").first().click();
  await expect(page.getByTestId("create-agent-form")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("create-agent-form")).toHaveCount(0);
  await expect(page.getByTestId("new-agent").first()).toBeFocused();
  await page.getByTestId("new-agent").first().click();
  await page.getByLabel("Name", { exact: true }).fill("Not a slug");
  await page.getByRole("button", { name: "Create agent" }).click();
  // The API's validation message shows under the field; nothing was created.
  await expect(page.getByRole("alert").filter({ hasText: "lower-case letters" })).toBeVisible();
  // The display name box stops at the API's limit, so its "too long" never has to be shown.
  await expect(page.getByLabel("Display name")).toHaveAttribute("maxlength", "80");
  await expect(page.getByLabel("Name", { exact: true })).toHaveAttribute("maxlength", "48");

  const name = uniqueName("ui-agent");
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Role").selectOption("lead");
  await page.getByLabel("Security profile").selectOption("paranoid");
  await page.getByRole("button", { name: "Create agent" }).click();
  // The swarm's first lead is offered the learning-loop schedules (whether this one is the first depends on the specs before).
  const offer = page.getByRole("dialog", { name: "Set up the learning loop?" });
  await expect(page.getByTestId("agent-name").or(offer)).toBeVisible();
  if (await offer.isVisible()) await offer.getByRole("button", { name: "Not now" }).click();
  await expect(page.getByTestId("agent-name")).toHaveText(name);
  await expect(page.getByText("offline", { exact: true }).first()).toBeVisible();
  await expect(page.getByTestId("security-profile-select")).toHaveValue("paranoid");
  // Widening what the agent may do to itself asks first and says exactly what changed.
  await page.getByTestId("security-profile-select").selectOption("power");
  await expect(page.getByRole("alertdialog")).toContainText("paranoid → power");
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("security-profile-select")).toHaveValue("paranoid");
  await page.getByTestId("security-profile-select").selectOption("power");
  await page.getByTestId("confirm-action").click();
  await expect(page.getByText(`Security profile of ${name}: paranoid → power`)).toBeVisible();
  await expect(page.getByTestId("security-profile-select")).toHaveValue("power");

  // A taken name is refused inline too.
  await page.goto("/agents");
  await expect(page.getByTestId("agents-table")).toContainText(name);
  await shoot(page, "agents");
  await page.getByTestId("new-agent").first().click();
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "already exists" })).toBeVisible();
  // Something was typed: closing asks before it throws the draft away.
  page.once("dialog", (dialog) => dialog.accept());
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toBeHidden();

  await page.getByTestId("agent-link").filter({ hasText: name }).click();
  await page.getByTestId("new-worker-token").click();
  await page.getByLabel("Token name").fill("e2e runner");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("revealed-token").textContent()) ?? "";
  expect(token).toMatch(/^sdw_/);
  await expect(page.getByText("shown only once")).toBeVisible();
  await page.getByRole("button", { name: "I have copied it" }).click();

  // The token works for a worker, and shows up as used.
  const register = await fetch(`${serverInfo().baseUrl}/api/worker/register`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ version: "0.9.0", hostname: "e2e-host", harness: "claude" }),
  });
  expect(register.status).toBe(200);
  await page.reload();
  await expect(page.getByText("e2e-host")).toBeVisible();
  await expect(page.getByTestId("worker-token-row")).toContainText("e2e runner");
  await shoot(page, "agent-detail");

  await page.getByTestId("revoke-worker-token").click();
  await page.getByTestId("confirm-action").click();
  await expect(page.getByTestId("worker-token-row")).toContainText("revoked");
  const refused = await fetch(`${serverInfo().baseUrl}/api/worker/register`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ version: "0.9.0", hostname: "e2e-host", harness: "claude" }),
  });
  expect(refused.status).toBe(401);
});

test("edit the global setup script in Monaco with no internet, save, reload, and it is kept", async ({ page }) => {
  // Monaco loads twice here (before and after the reload): slow on a busy machine.
  test.setTimeout(180_000);
  const foreign = await offline(page);
  await signIn(page);
  await page.goto("/settings");
  const editor = page.locator(".monaco-editor").first();
  // Monaco is large: give a busy machine time to load it (from the app itself).
  await expect(editor).toBeVisible({ timeout: 45_000 });
  const save = page.getByTestId("save-setup-script");
  await expect(save).toBeDisabled();

  const marker = `setup-${Date.now()}`;
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.type(`#!/bin/bash\napt-get install -y jq\necho ${marker}`);
  await expect(page.getByTestId("unsaved-changes")).toBeVisible();
  await expect(save).toBeEnabled();
  await shoot(page, "settings");
  await save.click();
  await expect(page.getByText("Global setup script saved")).toBeVisible();
  await expect(save).toBeDisabled();

  await page.reload();
  await expect(page.locator(".monaco-editor .view-lines").first()).toContainText(marker, { timeout: 45_000 });
  const stored = await apiCall("GET", "/api/v1/config?scope=global&key=SETUP_SCRIPT");
  expect(stored.body.entries[0].value).toBe(`#!/bin/bash\napt-get install -y jq\necho ${marker}`);
  expect(foreign).toEqual([]);
});

test("the audit log lists what happened and verifies its chain", async ({ page }) => {
  const name = uniqueName("audited");
  const created = await apiCall("POST", "/api/v1/agents", { name });
  expect(created.status).toBe(201);
  await signIn(page);
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  await shoot(page, "dashboard");
  await page.goto("/audit");
  await expect(page.getByTestId("audit-table")).toContainText("agent.created");
  await page.getByLabel("Filter by action").fill("agent.created");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByTestId("audit-table")).toContainText(name);
  await expect(page.getByTestId("audit-table")).not.toContainText("user.created");
  // The target is the agent by name, linked to its page; the details read as key: value, opened in place.
  const row = page.getByTestId("audit-row").filter({ hasText: name }).first();
  await expect(row.getByTestId("audit-details")).toContainText(`name: ${name}`);
  await expect(row.getByTestId("audit-details")).not.toContainText("{");
  await row.getByTestId("audit-details").locator("summary").click();
  await expect(row.getByTestId("audit-details").locator("dl")).toBeVisible();
  await row.getByTestId("audit-target-link").click();
  await expect(page).toHaveURL(new RegExp(`/agents/${created.body.agent.id}$`));
  await page.goto("/audit");
  await page.getByTestId("verify-chain").click();
  await expect(page.getByTestId("verify-result")).toContainText("Chain intact");
  await shoot(page, "audit");
});

test("a viewer reads but gets no write controls, and sees why", async ({ page }) => {
  const email = `${uniqueName("viewer")}@test.local`;
  const password = "viewer-password-123";
  expect((await apiCall("POST", "/api/v1/users", { email, role: "viewer", password })).status).toBe(201);
  const agent = await apiCall("POST", "/api/v1/agents", { name: uniqueName("viewed") });
  await signIn(page, email, password);
  await page.goto("/agents");
  await expect(page.getByTestId("agents-table")).toBeVisible();
  await expect(page.getByTestId("new-agent")).toHaveCount(0);
  await page.goto(`/agents/${agent.body.agent.id}`);
  await expect(page.getByText("Only an admin can change the security profile.")).toBeVisible();
  await expect(page.getByTestId("security-profile-help")).toContainText("proposals for an operator's review");
  await expect(page.getByTestId("security-profile-select")).toHaveCount(0);
  await expect(page.getByText("Only an admin can create or revoke worker tokens.")).toBeVisible();
  await expect(page.getByTestId("archive-agent")).toHaveCount(0);
  await shoot(page, "agent-detail-viewer");
  await page.goto("/settings");
  await expect(page.getByText("API tokens and users are managed by admins.")).toBeVisible();
  await expect(page.getByTestId("save-setup-script")).toHaveCount(0);
});

test("an admin manages users and operator API tokens on Settings", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.goto("/settings");
  const email = `${uniqueName("ops")}@test.local`;
  await page.getByTestId("new-user").click();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption("operator");
  await page.getByLabel("Password").fill("operator-password-1");
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByText(`User ${email} created`)).toBeVisible();
  await expect(page.getByTestId("users-table")).toContainText(email);

  // The last active admin cannot step down: the API says why, the role stays.
  await page.getByLabel(`Role of ${serverInfo().adminEmail}`).selectOption("viewer");
  await expect(page.getByRole("alertdialog")).toContainText("goes from admin to viewer");
  await page.getByTestId("confirm-action").click();
  await expect(page.getByText("last active admin")).toBeVisible();
  await expect(page.getByLabel(`Role of ${serverInfo().adminEmail}`)).toHaveValue("admin");

  // Taking a person's access away asks first and says exactly what changed.
  const userRow = page.getByTestId("users-table").getByRole("row").filter({ hasText: email });
  await userRow.getByRole("button", { name: "Disable" }).click();
  await expect(page.getByRole("alertdialog")).toContainText(`${email} will no longer be able to sign in`);
  await page.getByTestId("confirm-action").click();
  await expect(page.getByText(`${email} is disabled and can no longer sign in`)).toBeVisible();
  await expect(userRow).toContainText("disabled");
  await userRow.getByRole("button", { name: "Enable" }).click();
  await expect(page.getByText(`${email} is enabled and can sign in again`)).toBeVisible();

  // A token for the new operator: shown once, then it works, then revoked it does not.
  await page.getByTestId("new-api-token").click();
  await page.getByLabel("Token name").fill("ops script");
  await page.getByLabel("Owner").selectOption({ label: `${email} (operator)` });
  await page.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("revealed-token").textContent()) ?? "";
  expect(token).toMatch(/^sdo_/);
  await page.getByRole("button", { name: "I have copied it" }).click();
  expect((await apiCall("GET", "/api/v1/agents", undefined, token)).status).toBe(200);
  const row = page.getByTestId("api-tokens-table").getByRole("row").filter({ hasText: "ops script" });
  await expect(row).toContainText(email);
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByTestId("confirm-action").click();
  await expect(row).toContainText("revoked");
  expect((await apiCall("GET", "/api/v1/agents", undefined, token)).status).toBe(401);
});
