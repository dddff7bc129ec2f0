import { expect, serverInfo, signIn, test } from "./support/fixtures";

test("a signed-out visitor is sent to the login page, and back after signing in", async ({ page }) => {
  await page.goto("/settings?tab=tokens");
  await expect(page).toHaveURL(/\/login\?callbackUrl=/);
  await page.getByLabel("Email").fill(serverInfo().adminEmail);
  await page.getByLabel("Password").fill(serverInfo().adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/settings\?tab=tokens$/);
});

test("a wrong password is refused with a clear message and no session", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill(serverInfo().adminEmail);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("That email and password do not match an active account.")).toBeVisible();
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
});

test("an empty field is named under itself, not reported as a wrong password", async ({ page }) => {
  await page.goto("/login");
  // (Within the form: Next's route announcer is an alert too.)
  const alerts = page.locator("form").getByRole("alert");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(alerts).toHaveText(["Enter your email address.", "Enter your password."]);
  await expect(page.getByText("do not match an active account")).toHaveCount(0);
  await expect(page.getByLabel("Email")).toBeFocused();
  await page.getByLabel("Email").fill(serverInfo().adminEmail);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(alerts).toHaveText(["Enter your password."]);
  await expect(page.getByLabel("Password")).toBeFocused();
  await expect(page.getByText("do not match an active account")).toHaveCount(0);
  await page.getByLabel("Password").fill(serverInfo().adminPassword);
  await expect(alerts).toHaveCount(0);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("current-user")).toHaveText(serverInfo().adminEmail);
});

test("signing in through the form opens the dashboard, signing out ends the session", async ({ page }) => {
  await signIn(page);
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveText([
    "Dashboard",
    "Agents",
    "Proposals",
    "Tasks",
    "Memory",
    "Metrics",
    "Schedules",
    "Settings",
    "Audit",
  ]);
  await page.screenshot({ path: "test-results/screens/dashboard.png", fullPage: true });
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
});
