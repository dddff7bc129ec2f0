// A click-through of every operator screen with realistic data (agents with long
// and short names, tasks in every status, failures with long reasons, memories,
// proposals, a tool, a schedule, a week of metrics): on a 1440 px desktop and a
// 390 px phone, in light and dark. Each page has its heading on screen, logs no
// console error and, on the phone, scrolls only up and down. Full-page screenshots
// go to test-results/screens/tour/<page>-<width>-<scheme>.png for looking at.
import type { Page } from "@playwright/test";
import { apiCall, expect, signIn, test } from "./support/fixtures";

test.describe.configure({ mode: "serial", timeout: 300_000 });

type Agent = { id: string; name: string; displayName?: string | null };

const suffix = Date.now().toString(36).slice(-4);
// The longest a name may be (48) and a long display name: what an operator must still be able to read in full.
const LONG_NAME = `payments-monolith-refactoring-specialist-eu-${suffix}`;
const LONG_DISPLAY = "Payments monolith refactoring specialist (EU west, nightly)";
const LONG_REASON =
  "TypeError: Cannot read properties of undefined (reading 'currency') at normalizeInvoiceLine " +
  "(src/billing/invoices/normalize.ts:118:27) while replaying the March ledger import; " +
  "the fixture ledger-2026-03.json has 14 lines without a currency field and the migration assumed EUR for all of them";

let page: Page;
const consoleErrors: string[] = [];
let pages: { name: string; path: string; heading: string | RegExp }[] = [];
let longAgent: Agent;
let shortAgent: Agent;
let failedTaskId: string;

async function agent(body: Record<string, unknown>): Promise<Agent> {
  const reply = await apiCall<{ agent: Agent }>("POST", "/api/v1/agents", body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.agent;
}

/** A worker token for `agentId`, its worker registered (online). */
async function onlineWorker(agentId: string) {
  const minted = await apiCall<{ token: string }>("POST", `/api/v1/agents/${agentId}/tokens`, { name: "tour" });
  expect(minted.status).toBe(201);
  const token = minted.body.token;
  expect((await apiCall("POST", "/api/worker/register", { version: "tour", hostname: "build-01", harness: "command" }, token)).status).toBe(
    200,
  );
  return token;
}

async function createTask(title: string, extra: Record<string, unknown> = {}) {
  const reply = await apiCall<{ task: { id: string } }>("POST", "/api/v1/tasks", { title, ...extra });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.task.id;
}

/** Creates a task for the worker behind `token` and has the worker claim it. */
async function claimedTask(token: string, agentId: string, title: string, description = "") {
  const id = await createTask(title, { agentId, description });
  const poll = await apiCall<{ task: { id: string } }>("GET", "/api/worker/poll?waitMs=3000", undefined, token);
  expect(poll.body.task.id).toBe(id);
  return id;
}

async function currentVersion(agentId: string, slug: string) {
  return (await apiCall<{ versionId: string }>("GET", `/api/v1/agents/${agentId}/identity/${slug}`)).body.versionId;
}

test.beforeAll(async ({ browser }) => {
  longAgent = await agent({
    name: LONG_NAME,
    displayName: LONG_DISPLAY,
    description: "Owns the billing refactor: splits the invoice module out of the monolith, one tested step at a time.",
    securityProfile: "standard",
    capabilities: ["typescript", "postgres", "billing"],
  });
  shortAgent = await agent({ name: `qa-${suffix}`, role: "lead", capabilities: ["review"] });
  const reviewer = await agent({ name: `frontend-reviewer-${suffix}`, securityProfile: "standard" });
  await agent({ name: `docs-${suffix}`, description: "Keeps the docs in step with the code." });

  const longToken = await onlineWorker(longAgent.id);
  const shortToken = await onlineWorker(shortAgent.id);
  const reviewerToken = await onlineWorker(reviewer.id);

  // Tasks in every status: completed, failed (long and short reasons), cancelled, pending, unassigned, offered, in progress.
  for (const [i, title] of ["Split invoice totals into their own module", "Add a test for rounding of VAT"].entries()) {
    const id = await claimedTask(longToken, longAgent.id, title);
    expect(
      (
        await apiCall(
          "POST",
          `/api/worker/tasks/${id}/complete`,
          { output: `Done step ${i + 1}.\nAll 212 tests pass.`, summary: `Step ${i + 1} of the invoice split, tests green.` },
          longToken,
        )
      ).status,
    ).toBe(200);
  }
  const failedLong = await claimedTask(
    longToken,
    longAgent.id,
    "Replay the March ledger import against the new invoice normaliser and compare the totals line by line",
    "The March import is the largest one we have. Replay it against the new normaliser and compare the totals.",
  );
  failedTaskId = failedLong;
  expect((await apiCall("POST", `/api/worker/tasks/${failedLong}/fail`, { failureReason: LONG_REASON }, longToken)).status).toBe(200);
  for (const reason of ["Exit code 1: npm test", "Timed out after 30 minutes"]) {
    const id = await claimedTask(shortToken, shortAgent.id, `Review the ${reason.startsWith("Exit") ? "lint" : "e2e"} setup`);
    expect((await apiCall("POST", `/api/worker/tasks/${id}/fail`, { failureReason: reason }, shortToken)).status).toBe(200);
  }
  const reviewed = await claimedTask(reviewerToken, reviewer.id, "Review the settings page on a phone");
  expect((await apiCall("POST", `/api/worker/tasks/${reviewed}/complete`, { output: "Looks fine." }, reviewerToken)).status).toBe(200);
  const cancelled = await createTask("Upgrade the ORM to the next major version", { agentId: shortAgent.id });
  expect((await apiCall("PATCH", `/api/v1/tasks/${cancelled}`, { action: "cancel" })).status).toBe(200);
  await createTask("Write release notes for 2.4", { agentId: (await agent({ name: `offline-${suffix}` })).id });
  await createTask("Triage the flaky checkout test", { tags: ["flaky", "ci"], priority: 10 });
  expect(
    (
      await apiCall(
        "POST",
        "/api/worker/tasks",
        { title: "Cache the dependency install in CI", description: "It takes 4 minutes." },
        shortToken,
      )
    ).status,
  ).toBe(201);
  const running = await claimedTask(longToken, longAgent.id, "Move the tax tables into the billing package");

  // Memories, a swarm one and agent ones.
  expect(
    (
      await apiCall("POST", "/api/v1/memories", {
        items: [
          {
            name: "Ledger fixtures lack currencies",
            content: "The March ledger fixture has lines without a currency; never assume EUR.",
            scope: "agent",
            agentId: longAgent.id,
            source: "task_failure",
          },
          { name: "Staging needs the VPN", content: "Deploys to staging need the VPN up first.", scope: "swarm", source: "manual" },
          {
            name: "Run e2e in band",
            content: "The e2e suite shares one server: run it with one worker.",
            scope: "agent",
            agentId: shortAgent.id,
          },
        ],
      })
    ).status,
  ).toBe(201);

  // Identity proposals waiting for review (standard profile: SOUL changes wait).
  for (const [who, token] of [
    [longAgent, longToken],
    [reviewer, reviewerToken],
  ] as const) {
    const proposed = await apiCall(
      "PUT",
      "/api/worker/identity/soul",
      {
        content: "# SOUL\n\nShip small changes.\nRun the whole test suite before every commit.\n",
        baseVersionId: await currentVersion(who.id, "soul"),
        reason: "Two regressions last week came from skipping the tests",
        trigger: "agent",
      },
      token,
    );
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
  }

  // A tool the long-named agent wrote for itself, with a call and a failed call.
  const tool = await apiCall(
    "POST",
    "/api/worker/tools",
    {
      name: "ledger_diff",
      description: "Compares two ledger exports line by line",
      source: `import { z } from "zod";\nexport default { name: "ledger_diff", description: "Compares two ledger exports line by line", inputSchema: z.object({ a: z.string(), b: z.string() }), async execute() { return { same: true }; } };`,
      compiledCode: "export const tool = {};",
      inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } } },
      testInput: { a: "x", b: "x" },
      testOutput: { same: true },
      testDurationMs: 120,
      reason: "I compare ledgers on every billing task",
    },
    longToken,
  );
  expect(tool.status).toBe(201);
  await apiCall("POST", "/api/worker/tools/ledger_diff/calls", { ok: true, durationMs: 90 }, longToken);
  await apiCall(
    "POST",
    "/api/worker/tools/ledger_diff/calls",
    { ok: false, durationMs: 10, error: "invalid_input: b: required" },
    longToken,
  );

  // A schedule for the long-named agent.
  const schedule = await apiCall<{ schedule: { id: string } }>("POST", "/api/v1/schedules", {
    name: "Nightly ledger replay against the new normaliser",
    cron: "30 2 * * 1-5",
    timezone: "Europe/Berlin",
    enabled: true,
    agentId: longAgent.id,
    taskTitle: "Replay last night's ledger",
  });
  expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);

  pages = [
    { name: "dashboard", path: "/", heading: "Dashboard" },
    { name: "agents", path: "/agents", heading: "Agents" },
    { name: "agent-identity-tab", path: `/agents/${longAgent.id}`, heading: LONG_NAME },
    { name: "agent-tools-tab", path: `/agents/${longAgent.id}?tab=tools`, heading: LONG_NAME },
    { name: "agent-identity-editor", path: `/agents/${longAgent.id}/identity`, heading: /: identity$/ },
    { name: "tasks", path: "/tasks", heading: "Tasks" },
    { name: "task-failed", path: `/tasks/${failedLong}`, heading: /Replay the March ledger import/ },
    { name: "task-running", path: `/tasks/${running}`, heading: "Move the tax tables into the billing package" },
    { name: "proposals", path: "/proposals", heading: "Proposals" },
    { name: "memory", path: "/memory", heading: "Memory" },
    { name: "metrics", path: "/metrics", heading: "Metrics" },
    { name: "schedules", path: "/schedules", heading: "Schedules" },
    { name: "schedule", path: `/schedules/${schedule.body.schedule.id}`, heading: "Nightly ledger replay against the new normaliser" },
    { name: "settings", path: "/settings", heading: "Settings" },
    { name: "audit", path: "/audit", heading: "Audit log" },
    { name: "not-found", path: "/no-such-page", heading: "Page not found" },
  ];

  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.on("console", (message) => {
    // The 404 page's own document answers 404, which Chromium reports as a console error.
    if (message.type() === "error" && !/status of 404/.test(message.text())) consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(`page error: ${error.message}`));
  await signIn(page);
});
test.afterAll(async () => page?.context().close());

async function tour(width: number, scheme: "light" | "dark") {
  await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
  await page.emulateMedia({ colorScheme: scheme });
  await page.evaluate(() => localStorage.removeItem("theme"));
  for (const { name, path, heading } of pages) {
    consoleErrors.length = 0;
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    await expect.soft(page.getByRole("heading", { level: 1, name: heading }).first(), `${name}: its heading`).toBeVisible();
    await expect(page.locator("html")).toHaveClass(scheme === "dark" ? /\bdark\b/ : /^(?!.*\bdark\b)/);
    await page.screenshot({ path: `test-results/screens/tour/${name}-${width}-${scheme}.png`, fullPage: true });
    expect.soft(consoleErrors, `${name}: console errors`).toEqual([]);
    if (width <= 390) {
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect.soft(scrollWidth, `${name}: wider than the phone`).toBeLessThanOrEqual(390);
    }
  }
}

for (const width of [1440, 390]) {
  for (const scheme of ["light", "dark"] as const) {
    test(`every screen at ${width} px in ${scheme}: heading on screen, no console error${width <= 390 ? ", no sideways scroll" : ""}`, async () => {
      await tour(width, scheme);
    });
  }
}

/**
 * Whether `text`'s words are cut off on screen: it, or a box around it, clips its
 * content (overflow hidden, an ellipsis) and that content is wider than the box.
 */
async function isCut(text: import("@playwright/test").Locator) {
  return text.evaluate((element) => {
    for (let el: Element | null = element, up = 0; el && up < 4; el = el.parentElement, up++) {
      const style = getComputedStyle(el);
      const clips = style.overflowX !== "visible" || style.textOverflow === "ellipsis";
      if (clips && el.scrollWidth > el.clientWidth + 1) return true;
    }
    return false;
  });
}

test("long agent names and failure reasons stay readable; the weekly report lists no empty rows", async () => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 390, height: 844 });

  // Dashboard on a phone: the agent's whole name, not "payments-monolith-refactoring-spe…".
  await page.goto("/");
  // (Which agents the card lists depends on the shared database: none of them is cut.)
  const dashboardNames = page.getByTestId("dashboard-agent");
  await expect(dashboardNames.first()).toBeVisible();
  for (const name of await dashboardNames.all()) expect(await isCut(name)).toBe(false);
  // The tiles' notes wrap instead of stopping mid-word ("every reported setup r…").
  // (Its words depend on every agent in the shared database: only that they are whole is checked.)
  const setupNote = page.getByTestId("attention-setup-detail");
  await expect(setupNote).toBeVisible();
  expect(await isCut(setupNote)).toBe(false);

  // Proposals on a phone: who and which file, both readable.
  await page.goto("/proposals");
  const proposal = page.getByTestId("proposal-title").filter({ hasText: LONG_NAME });
  await expect(proposal).toContainText("SOUL.md");
  expect(await isCut(proposal)).toBe(false);

  // Memory on a phone: a long agent name beside a memory no longer squeezes the memory's name to one letter.
  await page.goto("/memory");
  const memoryName = page.getByTestId("memory-name").filter({ hasText: "Ledger fixtures lack currencies" });
  await expect(memoryName).toBeVisible();
  expect(await isCut(memoryName)).toBe(false);
  expect((await memoryName.boundingBox())?.width ?? 0).toBeGreaterThan(100);

  // The audit log on a phone: each cell's label stands beside its value (one line for "# 53"), not above it.
  await page.goto("/audit");
  const idCell = page.getByTestId("audit-row").first().locator("td").first();
  await expect(idCell).toHaveText(/^\d+$/);
  expect((await idCell.boundingBox())?.height ?? 0).toBeLessThan(30);

  // The metrics page on a phone.
  await page.goto("/metrics");
  const report = page.getByTestId("weekly-report");
  await expect(report.getByTestId("weekly-agent").first()).toBeVisible();
  // Only agents that finished a task: the one whose only task still waits has no row of dashes.
  // (The report lists the swarm's five biggest changes, and other specs' agents share the
  // database: which agents make the list is not this spec's to say. Every row is checked.)
  const rows = report.getByTestId("weekly-agent");
  const names = await report.getByTestId("weekly-agent-name").allInnerTexts();
  expect(names.length).toBeGreaterThan(0);
  expect(names).not.toContain(`offline-${suffix}`);
  expect(names).not.toContain(`docs-${suffix}`);
  for (const row of await rows.all()) {
    expect(await isCut(row.getByTestId("weekly-agent-name"))).toBe(false);
    // A row either compares failure rates or says in words why it cannot: never "0 → 0 tasks".
    await expect(row).not.toContainText(/(^|\D)0 → 0 tasks/);
    await expect(row).toContainText(/too few to compare|\d+(\.\d)?%/);
  }
  // With nothing last week there is nothing to compare: said in words, not "– · –".
  await expect(report).not.toContainText("– · –");
  // The long failure reason wraps onto a second line instead of stopping after a few words.
  // (Which reasons make the top list depends on the shared database: none of them is cut.)
  const reasons = report.getByTestId("weekly-failure-reason");
  await expect(reasons.first()).toBeVisible();
  for (const reason of await reasons.locator("span").all()) expect(await isCut(reason)).toBe(false);
  // Identity evolution: each lane's label starts inside the chart, and its tooltip is the whole name.
  const lane = page.getByTestId("identity-lane").filter({ has: page.locator("title", { hasText: LONG_NAME }) });
  await expect(lane).toHaveCount(1);
  await expect(lane.locator("text")).toHaveText(/^payments-.*….*-eu-/);
  // (The chart's drawing clips what reaches past its left edge.)
  const plot = await page.getByTestId("identity-timeline-plot").locator("svg.recharts-surface").first().boundingBox();
  for (const left of await page.getByTestId("identity-lane").evaluateAll((all) => all.map((l) => l.getBoundingClientRect().left))) {
    expect(left).toBeGreaterThanOrEqual(plot?.x ?? 0);
  }
  await page.getByTestId("weekly-report").screenshot({ path: "test-results/screens/tour/weekly-report-390-light.png" });
  await page.getByTestId("chart-identity").screenshot({ path: "test-results/screens/tour/identity-evolution-390-light.png" });

  // A task's agent on a desktop: the whole name, not "payments-monolith-refactoring-sp…".
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/tasks/${failedTaskId}`);
  await expect(page.getByTestId("task-agent")).toHaveText(LONG_NAME);
  expect(await isCut(page.getByTestId("task-agent"))).toBe(false);
});

test("on a phone the agents and tasks lists show every column of a row without scrolling sideways", async () => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 390, height: 844 });

  /** The cell is on the phone's screen and its list does not scroll sideways. */
  async function onScreen(table: import("@playwright/test").Locator, cell: import("@playwright/test").Locator) {
    await cell.scrollIntoViewIfNeeded();
    const box = await cell.boundingBox();
    expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 999)).toBeLessThanOrEqual(390);
    const [scrollWidth, clientWidth] = await table.evaluate((t) => [t.parentElement?.scrollWidth ?? 0, t.parentElement?.clientWidth ?? 0]);
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
  }

  // Agents: the long-named agent's row reads as labelled lines, down to its setup's state.
  await page.goto("/agents");
  const agents = page.getByTestId("agents-table");
  const agentRow = agents.locator("tr").filter({ has: page.getByTestId("agent-link").filter({ hasText: LONG_NAME }) });
  await expect(agentRow).toHaveCount(1);
  await onScreen(agents, agentRow.getByTestId("agent-link"));
  await onScreen(agents, agentRow.locator("td[data-label='Worker']"));
  await expect(agentRow.locator("td[data-label='Worker']")).toContainText("build-01");
  await onScreen(agents, agentRow.locator("td[data-label='Setup']"));
  await agentRow.screenshot({ path: "test-results/screens/tour/agents-row-390-light.png" });

  // Tasks: the failed task's row, down to when it last changed.
  await page.goto(`/tasks?agentId=${longAgent.id}`);
  const tasks = page.getByTestId("tasks-table");
  const taskRow = tasks.locator(`tr[data-task-id='${failedTaskId}']`);
  await expect(taskRow).toHaveCount(1);
  await onScreen(tasks, taskRow.getByTestId("task-link"));
  await expect(taskRow.locator("td[data-label='Agent']")).toContainText(LONG_NAME);
  await onScreen(tasks, taskRow.locator("td[data-label='Agent']"));
  await onScreen(tasks, taskRow.locator("td[data-label='Updated']"));
  await taskRow.screenshot({ path: "test-results/screens/tour/tasks-row-390-light.png" });
});
