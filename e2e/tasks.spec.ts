// Tasks in a real browser: create one in the dialog (its time limit checked), watch it change live while a
// worker (this test, over HTTP with the agent's token) claims, reports progress
// and completes it, then read the output rendered as markdown; operator actions
// go through their confirmations.
import { apiCall, expect, fillBeforeScripts, serverInfo, signIn, test, uniqueName } from "./support/fixtures";

async function agentWithToken() {
  const agent = await apiCall("POST", "/api/v1/agents", { name: uniqueName("tasker") });
  expect(agent.status).toBe(201);
  const token = await apiCall("POST", `/api/v1/agents/${agent.body.agent.id}/tokens`, { name: "e2e worker" });
  expect(token.status).toBe(201);
  return { id: agent.body.agent.id as string, name: agent.body.agent.name as string, token: token.body.token as string };
}

test("create a task, watch a worker claim and complete it live, read the rendered output", async ({ page }) => {
  const agent = await agentWithToken();
  await signIn(page);
  await page.goto("/tasks");
  await expect(page.getByRole("heading", { name: "Tasks" })).toBeVisible();

  const title = `Render the changelog ${uniqueName("t")}`;
  // Closing the dialog (Escape, or Cancel) gives focus back to the button that opened it.
  await page.getByTestId("new-task").click();
  await expect(page.getByTestId("create-task-form")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("create-task-form")).toHaveCount(0);
  await expect(page.getByTestId("new-task")).toBeFocused();
  await page.getByTestId("new-task").click();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("new-task")).toBeFocused();
  await page.getByTestId("new-task").click();
  const form = page.getByTestId("create-task-form");
  await form.getByLabel("Title").fill(title);
  await form.getByLabel("Description").fill("Summarise **this week's** changes.");
  await form.getByLabel("Tags").fill("docs, changelog");
  await form.getByLabel("Priority").fill("5");
  await form.getByLabel("Agent").selectOption(agent.id);
  // A time limit the API refuses is named under its field, and nothing is created.
  const limit = form.getByLabel("Time limit (minutes)");
  await limit.fill("-5");
  await page.getByTestId("create-task-submit").click();
  await expect(form.getByRole("alert")).toHaveText("at least 0.05 (3 seconds)");
  await limit.fill("20000");
  await page.getByTestId("create-task-submit").click();
  await expect(form.getByRole("alert")).toHaveText("at most 10080 (a week)");
  await page.screenshot({ path: "/tmp/tasks-new-time-limit-error.png" });
  await limit.fill("45");
  // A type and a priority the API refuses say so in plain words, not as a pattern or a bound.
  await form.getByLabel("Type").fill("Bug Fix");
  await form.getByLabel("Priority").fill("500");
  await page.getByTestId("create-task-submit").click();
  await expect(form.getByRole("alert").first()).toHaveText(
    "lower-case letters, digits, '_' and '-' (no spaces), starting with a letter, e.g. bugfix",
  );
  await expect(form.getByRole("alert").nth(1)).toHaveText("at most 100 (-100 … 100, higher first)");
  await expect(form).not.toContainText("Too big");
  await expect(form).not.toContainText("must match pattern");
  await expect(form.getByLabel("Type")).toHaveAttribute("maxlength", "40");
  await form.getByLabel("Type").fill("task");
  await form.getByLabel("Priority").fill("5");
  await page.getByTestId("create-task-submit").click();

  // The dialog takes us to the new task, waiting for its agent, with its own time limit.
  await expect(page.getByTestId("task-title")).toHaveText(title);
  await expect(page.getByTestId("task-time-limit")).toHaveText("45 min");
  await expect(page.getByTestId("task-status")).toHaveText("Pending");
  await expect(page.getByTestId("task-agent")).toHaveText(agent.name);
  const taskId = page.url().split("/").pop() as string;

  // The worker claims it: the page follows without a reload.
  const poll = await apiCall("GET", "/api/worker/poll?waitMs=5000", undefined, agent.token);
  expect(poll.status).toBe(200);
  expect(poll.body.task.id).toBe(taskId);
  // The worker gets the limit it enforces on the agent.
  expect(poll.body.task.timeLimitMinutes).toBe(45);
  await expect(page.getByTestId("task-status")).toHaveText("In progress");
  await apiCall("POST", `/api/worker/tasks/${taskId}/heartbeat`, { progress: "reading the git log" }, agent.token);
  await expect(page.getByTestId("task-progress")).toContainText("reading the git log");
  await page.screenshot({ path: "/tmp/tasks-detail-running.png", fullPage: true });

  const output = "## Changelog\n\n- **Faster** dispatch\n- A `tasks` page\n\n| area | change |\n| --- | --- |\n| api | poll |";
  const done = await apiCall("POST", `/api/worker/tasks/${taskId}/complete`, { output, summary: "wrote the changelog" }, agent.token);
  expect(done.status).toBe(200);
  await expect(page.getByTestId("task-status")).toHaveText("Completed");
  const rendered = page.getByTestId("task-output");
  await expect(rendered.getByRole("heading", { name: "Changelog" })).toBeVisible();
  await expect(rendered.locator("strong")).toHaveText("Faster");
  await expect(rendered.locator("code")).toHaveText("tasks");
  await expect(rendered.locator("table td").first()).toHaveText("api");
  const timeline = page.getByTestId("task-event");
  await expect(timeline).toHaveCount(4);
  await expect(page.getByTestId("task-timeline")).toContainText("reading the git log");
  await page.screenshot({ path: "/tmp/tasks-detail-done.png", fullPage: true });

  // The list shows it completed, and the filters find it.
  await page.goto("/tasks");
  await page.getByTestId("filter-q").fill(title);
  const row = page.locator(`[data-task-id="${taskId}"]`);
  await expect(row.getByTestId("task-status")).toHaveText("Completed");
  await page.getByTestId("filter-status").selectOption("failed");
  await expect(row).toHaveCount(0);
  await page.getByTestId("filter-status").selectOption("completed");
  await page.getByTestId("filter-tag").fill("changelog");
  await expect(row).toHaveCount(1);
  // The filters are in the URL: a reload (or a shared link) shows the same list.
  await expect(page).toHaveURL(/[?&]status=completed/);
  await expect(page).toHaveURL(/[?&]tag=changelog/);
  await page.reload();
  await expect(page.getByTestId("filter-status")).toHaveValue("completed");
  await expect(page.getByTestId("filter-tag")).toHaveValue("changelog");
  await expect(page.getByTestId("filter-q")).toHaveValue(title);
  await expect(row).toHaveCount(1);
  await page.screenshot({ path: "/tmp/tasks-list.png", fullPage: true });

  // A tag typed in capitals or with spaces around it is the tag it names.
  await page.getByTestId("filter-tag").fill("  ChangeLog ");
  await expect(page).toHaveURL(/[?&]tag=changelog/);
  await expect(row).toHaveCount(1);
  await expect(page.getByTestId("filter-tag-hint")).toHaveCount(0);
  // What cannot be a tag gets a hint under the box; the list stays (filtered by the rest).
  await page.getByTestId("filter-tag").fill("change log");
  await expect(page.getByTestId("filter-tag-hint")).toContainText("no spaces");
  await expect(page.getByTestId("filter-tag")).toHaveAttribute("aria-invalid", "true");
  await expect(page).not.toHaveURL(/[?&]tag=/);
  await expect(row).toHaveCount(1);
  await expect(page.getByText("The request is not valid")).toHaveCount(0);
});

test("cancel, retry and return to the pool through confirmations; a failure shows its reason", async ({ page }) => {
  const agent = await agentWithToken();
  const created = await apiCall("POST", "/api/v1/tasks", { title: `Flaky job ${uniqueName("t")}`, agentId: agent.id });
  const taskId = created.body.task.id as string;
  await apiCall("GET", "/api/worker/poll?waitMs=2000", undefined, agent.token);
  await apiCall(
    "POST",
    `/api/worker/tasks/${taskId}/fail`,
    { failureReason: "npm test: 3 failing", output: "Bumped the **test timeout** to 30 s; still red." },
    agent.token,
  );

  await signIn(page);
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByTestId("task-status")).toHaveText("Failed");
  await expect(page.getByTestId("task-failure")).toHaveText("npm test: 3 failing");

  await page.getByTestId("task-retry").click();
  await expect(page.getByRole("alertdialog")).toContainText("Retry this task?");
  await page.getByTestId("confirm-action").click();
  await expect(page.getByText(`Task queued again for ${agent.name}`)).toBeVisible();
  await expect(page.getByTestId("task-status")).toHaveText("Pending");
  await expect(page.getByTestId("task-failure")).toHaveCount(0);
  // The run that failed is kept, with its reason and its output rendered.
  const run = page.getByTestId("earlier-run");
  await expect(run).toHaveCount(1);
  await expect(run).toContainText("Run 1");
  await expect(run.getByTestId("earlier-run-failure")).toHaveText("npm test: 3 failing");
  await expect(run.getByTestId("earlier-run-output").locator("strong")).toHaveText("test timeout");

  await page.getByTestId("task-unassign").click();
  await page.getByTestId("confirm-action").click();
  await expect(page.getByTestId("task-status")).toHaveText("In the pool");
  await expect(page.getByTestId("task-agent")).toHaveText("the pool");

  // A cancel that is dismissed changes nothing; a confirmed one cancels.
  await page.getByTestId("task-cancel").click();
  await page.getByRole("button", { name: "Keep task", exact: true }).click();
  await expect(page.getByTestId("task-status")).toHaveText("In the pool");
  await page.getByTestId("task-cancel").click();
  await page.getByTestId("confirm-action").click();
  await expect(page.getByTestId("task-status")).toHaveText("Cancelled");
  await expect(page.getByTestId("task-cancel")).toHaveCount(0);
  const after = await apiCall("GET", `/api/v1/tasks/${taskId}`);
  expect(after.body.task.status).toBe("cancelled");
  await page.screenshot({ path: "/tmp/tasks-detail-cancelled.png", fullPage: true });
});

test("an agent is named the same way in every picker and every table: its name, with its display name beside it", async ({ page }) => {
  const name = uniqueName("backend");
  const created = await apiCall("POST", "/api/v1/agents", { name, displayName: "Backend developer" });
  expect(created.status).toBe(201);
  const task = await apiCall("POST", "/api/v1/tasks", { title: `Name check ${uniqueName("t")}`, agentId: created.body.agent.id });
  await signIn(page);

  await page.goto("/tasks");
  const option = `${name} · Backend developer`;
  await expect(page.getByTestId("filter-agent").locator("option", { hasText: option })).toHaveCount(1);
  await expect(page.getByTestId("tasks-table")).toContainText(name);
  await page.getByTestId("new-task").click();
  await expect(page.getByTestId("create-task-form").getByLabel("Agent").locator("option", { hasText: option })).toHaveCount(1);
  await page.keyboard.press("Escape");

  await page.goto("/metrics");
  await expect(page.getByTestId("metrics-agent").locator("option", { hasText: option })).toHaveCount(1);
  await page.goto(`/tasks/${task.body.task.id}`);
  await expect(page.getByTestId("task-agent")).toHaveText(name);
});

test("what is typed into the task search before the page's scripts have run is kept and applied, and a link's filters are in the page as served", async ({
  page,
  browser,
}) => {
  const wanted = await apiCall("POST", "/api/v1/tasks", { title: `Rotate the signing keys ${uniqueName("t")}` });
  const other = await apiCall("POST", "/api/v1/tasks", { title: `Prune old branches ${uniqueName("t")}` });
  expect(wanted.status).toBe(201);
  expect(other.status).toBe(201);
  await signIn(page);

  // Type while the page is still the server's HTML.
  const search = page.getByTestId("filter-q");
  await fillBeforeScripts(page, "/tasks", search, wanted.body.task.title);

  // Once the page runs, the text is still there and the list is filtered by it.
  await expect(page.locator(`[data-task-id="${wanted.body.task.id}"]`)).toBeVisible();
  await expect(search).toHaveValue(wanted.body.task.title);
  await expect(page.locator(`[data-task-id="${other.body.task.id}"]`)).toHaveCount(0);
  await expect(page).toHaveURL(/[?&]q=Rotate/);

  // A shared link's filters are in the served page itself, before any script runs.
  const noScript = await browser.newContext({
    baseURL: serverInfo().baseUrl,
    javaScriptEnabled: false,
    storageState: await page.context().storageState(),
  });
  const served = await noScript.newPage();
  await served.goto(`/tasks?status=completed&tag=docs&q=${encodeURIComponent("signing keys")}`);
  await expect(served.getByTestId("filter-q")).toHaveValue("signing keys");
  await expect(served.getByTestId("filter-status")).toHaveValue("completed");
  await expect(served.getByTestId("filter-tag")).toHaveValue("docs");
  // A repeated filter reads as its first value.
  await served.goto("/tasks?tag=docs&tag=ops");
  await expect(served.getByTestId("filter-tag")).toHaveValue("docs");
  await noScript.close();

  // A status the list does not offer is dropped: all statuses are listed and the URL
  // no longer asks for it.
  await page.goto("/tasks?status=archived");
  await expect(page.locator(`[data-task-id="${wanted.body.task.id}"]`)).toBeVisible();
  await expect(page.getByTestId("filter-status")).toHaveValue("");
  await expect(page).not.toHaveURL(/status=/);

  // A link to an agent that is gone: the picker says so rather than "All agents", as the
  // list is still filtered by it (and so empty).
  await page.goto("/tasks?agentId=00000000-0000-4000-8000-000000000000");
  await expect(page.getByTestId("filter-agent").locator("option:checked")).toHaveText("Unknown agent");
  await expect(page.getByText("No task matches these filters")).toBeVisible();

  // Filtered by a search, the sidebar's "Tasks" is the whole list again, and Back is
  // the search again.
  await page.goto(`/tasks?q=${encodeURIComponent(wanted.body.task.title)}`);
  await expect(page.locator(`[data-task-id="${other.body.task.id}"]`)).toHaveCount(0);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tasks" }).click();
  await expect(page).toHaveURL(/\/tasks$/);
  await expect(search).toHaveValue("");
  await expect(page.locator(`[data-task-id="${other.body.task.id}"]`)).toBeVisible();
  await page.goBack();
  await expect(search).toHaveValue(wanted.body.task.title);
  await expect(page.locator(`[data-task-id="${wanted.body.task.id}"]`)).toBeVisible();
  await expect(page.locator(`[data-task-id="${other.body.task.id}"]`)).toHaveCount(0);
});

test("a pool task is assigned to an agent, an agent's task reassigned", async ({ page }) => {
  const agent = await agentWithToken();
  const title = `Assign me ${uniqueName("t")}`;
  const created = await apiCall("POST", "/api/v1/tasks", { title });
  expect(created.status).toBe(201);
  await signIn(page);
  await page.goto(`/tasks/${created.body.task.id}`);
  // A task in the pool has no agent to take it from: it is assigned, not reassigned.
  await expect(page.getByTestId("task-reassign")).toHaveText("Assign to an agent");
  await page.getByTestId("task-reassign").click();
  await expect(page.getByRole("alertdialog")).toContainText("Assign this task");
  await page.getByTestId("reassign-agent").selectOption(agent.id);
  await page.getByTestId("confirm-action").click();
  await expect(page.getByTestId("task-agent")).toHaveText(agent.name);
  await expect(page.getByTestId("task-reassign")).toHaveText("Reassign");
});
