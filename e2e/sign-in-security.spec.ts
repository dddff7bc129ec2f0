// Sign-in security in the browser (issue 15, points 3 and 4): the page after sign-in
// never leaves the app, and Settings lists and ends sessions for real.
import { apiCall, expect, serverInfo, signIn, test, uniqueName } from "./support/fixtures";

for (const callbackUrl of ["/%5Cevil.example/", "/%09/evil.example/", "/%5C%5Cevil.example"]) {
  test(`signing in from /login?callbackUrl=${callbackUrl} stays on the app`, async ({ page }) => {
    await page.goto(`/login?callbackUrl=${callbackUrl}`);
    await page.getByLabel("Email").fill(serverInfo().adminEmail);
    await page.getByLabel("Password").fill(serverInfo().adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("current-user")).toHaveText(serverInfo().adminEmail);
    expect(new URL(page.url()).origin).toBe(serverInfo().baseUrl);
    await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  });
}

test("Settings lists a user's sessions and ends another browser's session at once", async ({ browser }) => {
  const email = `${uniqueName("sessions")}@test.local`;
  const password = "a-long-enough-password";
  expect((await apiCall("POST", "/api/v1/users", { email, password, role: "operator" })).status).toBe(201);

  const laptop = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1",
  });
  const here = await laptop.newPage();
  const there = await phone.newPage();
  await signIn(here, email, password);
  await signIn(there, email, password);

  await here.goto("/settings");
  const rows = here.getByTestId("session-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: "this browser" })).toHaveCount(1);
  const phoneRow = rows.filter({ hasText: "Safari on iOS" });
  await expect(phoneRow).toHaveCount(1);
  await here.getByTestId("sessions-table").screenshot({ path: "test-results/screens/settings-sessions.png" });
  await phoneRow.getByRole("button", { name: "End" }).click();
  await expect(rows).toHaveCount(1);

  // The phone's cookie is still there, but its session is over.
  await there.goto("/tasks");
  await expect(there).toHaveURL(/\/login/);
  await there.goto("/settings");
  await expect(there).toHaveURL(/\/login/);

  // Signing out of "this browser" from the list ends it too.
  await rows.getByRole("button", { name: "Sign out" }).click();
  await expect(here).toHaveURL(/\/login/);
  await here.goto("/");
  await expect(here).toHaveURL(/\/login/);
  await laptop.close();
  await phone.close();
});
