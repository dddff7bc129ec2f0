// Shared helpers for browser tests: the server under test, an API client with the
// admin token (for arranging data), and signing in through the real form.
import { test as base, expect, type Locator, type Page } from "@playwright/test";

type ServerInfo = { baseUrl: string; dbFile: string; adminEmail: string; adminPassword: string; adminToken: string };

export function serverInfo(): ServerInfo {
  const raw = process.env.SWARMDECK_E2E_SERVER;
  if (!raw) throw new Error("the e2e global setup did not run");
  return JSON.parse(raw) as ServerInfo;
}

export async function apiCall<T = any>(
  method: string,
  path: string,
  body?: unknown,
  token = serverInfo().adminToken,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${serverInfo().baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

export async function signIn(page: Page, email = serverInfo().adminEmail, password = serverInfo().adminPassword) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("current-user")).toHaveText(email);
}

/**
 * Opens `path` with its scripts held back, as a slow network does, fills `box` while
 * the page is still the server's HTML, does `andThen` if given (still before the
 * scripts), then lets the scripts load.
 */
export async function fillBeforeScripts(page: Page, path: string, box: Locator, text: string, andThen?: () => Promise<void>) {
  const release = await openBeforeScripts(page, path);
  await expect(box).toBeVisible();
  await box.fill(text);
  // (What else is done before the scripts run, e.g. pressing Enter in the box.)
  if (andThen) await andThen();
  release();
}

/** Opens `path` with its scripts held back, as a slow network does; the function it returns lets them load. */
export async function openBeforeScripts(page: Page, path: string): Promise<() => void> {
  const scripts = /\/_next\/static\/chunks\/.*\.js$/;
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  // Once released, the route lets every script through at once (it stays in place:
  // removing it while held requests are still being let through fails them).
  await page.route(scripts, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(path, { waitUntil: "commit" });
  return release;
}

let counter = 0;
export function uniqueName(prefix = "e2e"): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

export const test = base;
export { expect };

/**
 * The toast (sonner's `[data-sonner-toast]`) whose title is `title`, exactly. A plain
 * `getByText` also matches other text on the page, and case-insensitively: "Saved SOUL.md"
 * matched the stale-save notice's "admin@test.local saved SOUL.md (version 2)" before the
 * save it waited for had been answered.
 */
export const toast = (page: Page, title: string) => page.locator("[data-sonner-toast] [data-title]").getByText(title, { exact: true });

/** The words of `locator`'s text that the browser broke over two lines. */
export const splitWords = (locator: Locator) =>
  locator.evaluate((element) => {
    const node = element.firstChild as Text;
    const split: string[] = [];
    for (const match of node.data.matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      if (new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1) split.push(match[0]);
    }
    return split;
  });
