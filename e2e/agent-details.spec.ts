// Editing an agent's details from its page: name, display name, description and
// role through the dialog; a taken name answered under the field with the input
// kept; the action hidden from viewers. Screenshots at desktop and phone width,
// light and dark: test-results/screens/agent-details/.
import path from "node:path";
import type { Page } from "@playwright/test";
import { newAgent } from "./identity-support";
import { apiCall, expect, signIn, test, uniqueName } from "./support/fixtures";

test.describe.configure({ timeout: 120_000 });

const SHOTS = path.join(import.meta.dirname, "..", "test-results", "screens", "agent-details");
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

async function shoot(page: Page, name: string, fullPage = false) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${scheme}.png`), fullPage });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

async function pageWidth(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

async function newUser(role: "viewer" | "operator") {
  const email = `${uniqueName(role)}@test.local`;
  const password = `${role}-password-123`;
  expect((await apiCall("POST", "/api/v1/users", { email, role, password })).status).toBe(201);
  return { email, password };
}

test("an operator edits an agent's name, description and role; a taken name is refused in the dialog", async ({ page }) => {
  const taken = await newAgent();
  const agent = await newAgent({ description: "Writes the first drafts.", role: "worker" });
  const renamed = uniqueName("renamed");
  const description = "Owns the API and the database migrations.\nReviews every schema change.";
  const operator = await newUser("operator");

  await page.setViewportSize(DESKTOP);
  await signIn(page, operator.email, operator.password);
  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByTestId("agent-name")).toHaveText(agent.name);

  await page.getByTestId("edit-agent-details").click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(`Edit ${agent.name}`);
  await expect(dialog.getByLabel("Name", { exact: true })).toHaveValue(agent.name);
  await expect(dialog.getByLabel("Description")).toHaveValue("Writes the first drafts.");
  await expect(dialog.getByLabel("Role")).toHaveValue("worker");

  // A name another agent has: the dialog stays open, says so under the field, keeps the input.
  await dialog.getByLabel("Name", { exact: true }).fill(taken.name);
  await dialog.getByLabel("Description").fill(description);
  await dialog.getByTestId("save-agent-details").click();
  const nameError = dialog.getByRole("alert");
  await expect(nameError).toContainText(`An agent named "${taken.name}" already exists`);
  await expect(dialog.getByLabel("Name", { exact: true })).toHaveValue(taken.name);
  await expect(dialog.getByLabel("Name", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(dialog.getByLabel("Name", { exact: true })).toBeFocused();
  await expect(dialog.getByLabel("Description")).toHaveValue(description);
  await shoot(page, "desktop-duplicate-name");
  expect((await apiCall("GET", `/api/v1/agents/${agent.id}`)).body.agent).toMatchObject({
    name: agent.name,
    description: "Writes the first drafts.",
  });

  // A new name, a display name and the lead role (the dialog says what that changes).
  await dialog.getByLabel("Name", { exact: true }).fill(renamed);
  await expect(nameError).toHaveCount(0);
  await dialog.getByLabel("Display name").fill("API owner");
  await dialog.getByLabel("Role").selectOption("lead");
  await expect(dialog.getByTestId("edit-agent-role-note")).toContainText("read the whole swarm");
  await shoot(page, "desktop-dialog");
  await dialog.getByTestId("save-agent-details").click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByText(`${agent.name} is now ${renamed}`)).toBeVisible();

  await expect(page.getByTestId("agent-name")).toHaveText(renamed);
  await expect(page.getByTestId("agent-display-name")).toHaveText("API owner");
  await expect(page.getByTestId("agent-role")).toHaveText("lead");
  await expect(page.getByTestId("agent-description")).toHaveText(description);
  await shoot(page, "desktop-saved", true);
  const stored = await apiCall("GET", `/api/v1/agents/${agent.id}`);
  expect(stored.status).toBe(200);
  expect(stored.body.agent).toMatchObject({ name: renamed, displayName: "API owner", description, role: "lead" });

  // After a reload too (not just the client's cache); the dialog opens with the saved values.
  await page.reload();
  await expect(page.getByTestId("agent-name")).toHaveText(renamed);
  await page.getByTestId("edit-agent-details").click();
  await expect(dialog.getByLabel("Name", { exact: true })).toHaveValue(renamed);
  await expect(dialog.getByLabel("Role")).toHaveValue("lead");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
});

test("on a phone the dialog fits, and back to worker saves", async ({ page }) => {
  const agent = await newAgent({ role: "lead", description: "Coordinates the others." });
  await page.setViewportSize(PHONE);
  await signIn(page);
  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByTestId("agent-name")).toHaveText(agent.name);
  await expect(page.getByTestId("edit-agent-details")).toBeVisible();
  expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
  await shoot(page, "phone-page", true);

  await page.getByTestId("edit-agent-details").click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Role").selectOption("worker");
  await expect(dialog.getByTestId("edit-agent-role-note")).toContainText("loses the swarm-wide reads");
  const box = await dialog.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
  await shoot(page, "phone-dialog");

  // A name that is no slug: the API's message under the field.
  await dialog.getByLabel("Name", { exact: true }).fill("Not A Slug");
  await dialog.getByTestId("save-agent-details").click();
  await expect(dialog.getByRole("alert")).toContainText("lower-case letters");
  await expect(dialog.getByLabel("Name", { exact: true })).toHaveValue("Not A Slug");
  await shoot(page, "phone-invalid-name");

  // An error that names no field: one clear message at the top, the input kept.
  await dialog.getByLabel("Name", { exact: true }).fill(agent.name);
  let refused = false;
  await page.route(`**/api/v1/agents/${agent.id}`, (route) => {
    if (route.request().method() !== "PATCH" || refused) return route.fallback();
    refused = true;
    return route.fulfill({ status: 503, json: { error: { code: "unavailable", message: "The server is busy; try again." } } });
  });
  await dialog.getByTestId("save-agent-details").click();
  await expect(dialog.getByTestId("edit-agent-error")).toHaveText("The server is busy; try again.");
  await expect(dialog.getByLabel("Role")).toHaveValue("worker");
  await shoot(page, "phone-server-error");
  await dialog.getByTestId("save-agent-details").click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByText(`Details of ${agent.name} saved`)).toBeVisible();
  await expect(page.getByTestId("agent-role")).toHaveText("worker");
  expect((await apiCall("GET", `/api/v1/agents/${agent.id}`)).body.agent).toMatchObject({
    name: agent.name,
    role: "worker",
    description: "Coordinates the others.",
  });
});

test("a viewer does not get the Edit details action", async ({ page }) => {
  const agent = await newAgent();
  const viewer = await newUser("viewer");
  await signIn(page, viewer.email, viewer.password);
  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByTestId("agent-name")).toHaveText(agent.name);
  await expect(page.getByTestId("edit-agent-details")).toHaveCount(0);
  await expect(page.getByText("Edit details")).toHaveCount(0);
});
