// The Content-Security-Policy in real Chromium (issue 15, point 7): every page is
// served with a nonce-based policy, and the app works under it: Next's scripts run
// (the pages become interactive), Monaco loads its scripts and workers, the charts
// draw, and the console shows no CSP violation on any page.
import type { Page } from "@playwright/test";
import { newAgent } from "./identity-support";
import { expect, signIn, test } from "./support/fixtures";

test.describe.configure({ timeout: 180_000 });

function watchViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content.Security.Policy|Refused to (load|execute|apply|connect|create|frame)/i.test(message.text()))
      violations.push(message.text());
  });
  return violations;
}

test("every page works under the CSP with no violation in the console", async ({ page }) => {
  const violations = watchViolations(page);
  const agent = await newAgent();

  const login = await page.goto("/login");
  const policy = login?.headers()["content-security-policy"] ?? "";
  expect(policy).toMatch(/script-src [^;]*'nonce-[^']+'/);
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).not.toContain("'unsafe-eval'");
  await signIn(page);

  for (const path of [
    "/",
    "/agents",
    `/agents/${agent.id}`,
    "/proposals",
    "/tasks",
    "/memory",
    "/metrics",
    "/schedules",
    "/settings",
    "/audit",
  ]) {
    const response = await page.goto(path);
    expect(response?.headers()["content-security-policy"], path).toMatch(/'nonce-/);
    await expect(page.getByTestId("current-user"), path).toBeVisible();
    await page.waitForLoadState("networkidle");
  }
  // Charts: Recharts draws its SVG.
  await page.goto("/metrics");
  await expect(page.locator(".recharts-surface").first()).toBeVisible({ timeout: 30_000 });

  // Monaco: its loader, modules and workers, from /monaco, under 'strict-dynamic'.
  await page.goto(`/agents/${agent.id}/identity`);
  await expect(page.locator("[data-testid=identity-editor] .monaco-editor")).toBeVisible({ timeout: 60_000 });
  await expect(page.locator("[data-testid=identity-editor] .view-lines")).toContainText("SOUL", { timeout: 30_000 });
  await page.waitForLoadState("networkidle");

  expect(violations).toEqual([]);
});

test("an inline script an attacker manages to inject does not run", async ({ page }) => {
  const violations = watchViolations(page);
  await signIn(page);
  await page.goto("/settings");
  const ran = await page.evaluate(async () => {
    const script = document.createElement("div");
    script.innerHTML = '<img src=x onerror="window.__pwned = true">';
    document.body.appendChild(script);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return (window as unknown as { __pwned?: boolean }).__pwned === true;
  });
  expect(ran).toBe(false);
  expect(violations.length).toBeGreaterThan(0);
});
