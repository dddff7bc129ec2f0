// Settings says what the instance serves from: SQLite on the embedded default (this
// suite's server), PostgreSQL on a second server started on a fresh PostgreSQL
// database (TEST_DATABASE_URL's server, as the HTTP suite uses), each signed in
// through the form, at desktop and phone width, light and dark.
import path from "node:path";
import type { Page } from "@playwright/test";
import { createPostgresDatabase } from "../tests/support/test-db";
import { startTestServer } from "../tests/support/test-server";
import { expect, serverInfo, test } from "./support/fixtures";

const SHOTS = path.join(import.meta.dirname, "..", "test-results", "screens");

async function shoot(page: Page, name: string) {
  for (const [width, height, size] of [
    [1400, 900, "desktop"],
    [390, 844, "phone"],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(150);
      await page.screenshot({ path: path.join(SHOTS, `${name}-${size}-${scheme}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });
}

async function signInAt(page: Page, baseUrl: string, email: string, password: string) {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("current-user")).toHaveText(email);
}

test("Settings names the embedded SQLite database this server serves from", async ({ page }) => {
  const { baseUrl, adminEmail, adminPassword } = serverInfo();
  await signInAt(page, baseUrl, adminEmail, adminPassword);
  await page.goto(`${baseUrl}/settings`);
  await expect(page.getByTestId("database-kind")).toHaveText("SQLite (embedded)");
  await expect(page.getByTestId("system-info")).toContainText("answering");
  await shoot(page, "settings-system-sqlite");
});

test("Settings names PostgreSQL on a server that serves from it", async ({ page }) => {
  test.setTimeout(180_000);
  const database = await createPostgresDatabase("swarmdeck_e2e");
  const server = await startTestServer({ databaseUrl: database.url });
  try {
    await signInAt(page, server.baseUrl, server.adminEmail, server.adminPassword);
    await page.goto(`${server.baseUrl}/settings`);
    await expect(page.getByTestId("database-kind")).toHaveText("PostgreSQL");
    await expect(page.getByTestId("system-info")).toContainText("answering");
    await shoot(page, "settings-system-postgresql");
  } finally {
    await server.stop();
    await database.drop();
  }
});
