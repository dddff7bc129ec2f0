// A refused form on a phone (390 × 844): the dialogs are taller than the screen and
// their submit button is at the foot, so what is wrong must come into view where the
// user is looking. After each refused submit the message is on screen, the field it
// is about is focused, marked invalid and described by that message.
import type { Locator, Page } from "@playwright/test";
import { newAgent } from "./identity-support";
import { apiCall, expect, signIn, test, uniqueName } from "./support/fixtures";

test.use({ viewport: { width: 390, height: 844 } });

/** The field is focused, invalid, described by `message`, and the message is on screen. */
async function expectRefused(page: Page, field: Locator, message: string | RegExp) {
  const error = page.getByRole("dialog").getByRole("alert").filter({ hasText: message });
  await expect(error).toBeVisible();
  await expect(error).toBeInViewport({ ratio: 1 });
  await expect(field).toBeFocused();
  await expect(field).toBeInViewport({ ratio: 1 });
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toHaveAccessibleDescription(message);
}

test("New task: an empty title is refused where the user can see it", async ({ page }) => {
  await signIn(page);
  await page.goto("/tasks");
  await page.getByTestId("new-task").click();
  const form = page.getByTestId("create-task-form");
  // The dialog does not fit the phone: the submit button is only reached by scrolling down.
  const submit = page.getByTestId("create-task-submit");
  await submit.scrollIntoViewIfNeeded();
  await expect(form.getByLabel("Title")).not.toBeInViewport({ ratio: 0.5 });
  await submit.click();
  await expectRefused(page, form.getByLabel("Title"), "a title is required");

  // Typing the title and submitting again creates the task.
  const title = `Seen on a phone ${uniqueName("t")}`;
  await page.keyboard.type(title);
  await submit.click();
  await expect(page.getByTestId("task-title")).toHaveText(title);
});

test("New agent and Edit details: a refused name is in view and focused", async ({ page }) => {
  const taken = await newAgent();
  await signIn(page);
  await page.goto("/agents");
  await page.getByTestId("new-agent").click();
  const create = page.getByTestId("create-agent-form");
  await create.getByRole("button", { name: "Create agent" }).click();
  await expectRefused(page, create.getByLabel("Name", { exact: true }), "at least 2 characters");
  await page.getByRole("button", { name: "Cancel" }).click();

  const agent = await newAgent();
  await page.goto(`/agents/${agent.id}`);
  await page.getByTestId("edit-agent-details").click();
  const edit = page.getByTestId("edit-agent-form");
  await edit.getByLabel("Name", { exact: true }).fill(taken.name);
  await page.getByTestId("save-agent-details").click();
  await expectRefused(page, edit.getByLabel("Name", { exact: true }), `An agent named "${taken.name}" already exists`);
  await edit.getByLabel("Name", { exact: true }).fill(agent.name);
  await page.getByRole("button", { name: "Cancel" }).click();

  // A worker token without a name.
  await page.getByTestId("new-worker-token").click();
  await page.getByRole("dialog").getByRole("button", { name: "Create token" }).click();
  await expectRefused(page, page.getByRole("dialog").getByLabel("Token name"), "a name is required");
});

test("New schedule: a missing name and task title are said under their fields, the first in view", async ({ page }) => {
  await signIn(page);
  await page.goto("/schedules");
  await page.getByTestId("new-schedule").click();
  const form = page.getByTestId("schedule-form");
  await expect(page.getByTestId("cron-preview")).toBeVisible();
  await page.getByTestId("schedule-save").click();
  await expectRefused(page, form.getByLabel("Name"), "a name is required");
  await expect(form.getByLabel("Task title")).toHaveAccessibleDescription("a task title is required");
});

test("Settings: a taken email, a short password and a token without a name are refused in view", async ({ page }) => {
  const email = `${uniqueName("taken")}@test.local`;
  expect((await apiCall("POST", "/api/v1/users", { email, role: "viewer", password: "viewer-password-123" })).status).toBe(201);
  await signIn(page);
  await page.goto("/settings");

  await page.getByTestId("new-user").click();
  const form = page.getByTestId("new-user-form");
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password").fill("a-long-enough-password");
  await form.getByRole("button", { name: "Create user" }).click();
  await expectRefused(page, form.getByLabel("Email"), `A user with the email ${email} already exists`);
  await form.getByLabel("Email").fill(`${uniqueName("new")}@test.local`);
  await form.getByLabel("Password").fill("short");
  await form.getByRole("button", { name: "Create user" }).click();
  await expectRefused(page, form.getByLabel("Password"), /^at least \d+ characters$/);
  await form.getByRole("button", { name: "Cancel" }).click();
  await expect(form).toHaveCount(0);

  await page.getByTestId("new-api-token").click();
  await page.getByRole("dialog").getByRole("button", { name: "Create token" }).click();
  await expectRefused(page, page.getByRole("dialog").getByLabel("Token name"), "a name is required");
});

test("Inject a learning: a missing agent and learning are said under their fields", async ({ page }) => {
  await newAgent();
  await signIn(page);
  await page.goto("/memory");
  await page.getByTestId("inject-learning").click();
  await page.getByTestId("learning-submit").click();
  await expectRefused(page, page.getByTestId("learning-target"), "Pick the agent that should learn this.");
  await expect(page.getByTestId("learning-text")).toHaveAccessibleDescription("Write the learning.");
});
