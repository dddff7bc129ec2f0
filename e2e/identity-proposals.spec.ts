// Reviewing agent proposals in real Chromium: three proposals made through the
// worker API: approve one, approve another after editing it, reject the third.

import { identityFile, newAgent, workerToken } from "./identity-support";
import { apiCall, expect, signIn, test } from "./support/fixtures";

async function propose(token: string, agentId: string, slug: string, content: string, reason: string) {
  const base = await identityFile(agentId, slug);
  const reply = await apiCall<{ proposalId: string }>(
    "PUT",
    `/api/worker/identity/${slug}`,
    { content, baseVersionId: base.versionId, reason, trigger: "agent" },
    token,
  );
  expect(reply.status).toBe(202);
  return reply.body.proposalId;
}

// Monaco is heavy and the test machine is shared: these are long user journeys.
test.describe.configure({ timeout: 120_000 });

test("approve, approve edited, and reject with a note", async ({ page }) => {
  const agent = await newAgent({ securityProfile: "standard" });
  const token = workerToken(agent.id);
  const soul = await propose(token, agent.id, "soul", "# SOUL.md\n\nI prefer short answers.\n", "The user keeps asking for brevity");
  const identity = await propose(token, agent.id, "identity", "# IDENTITY.md\n\nName: Quill\n", "I picked a name");
  const user = await propose(token, agent.id, "user", "# USER.md\n\nThe user hates tests.\n", "Guessing about the user");

  await signIn(page);
  await expect(page.getByTestId("proposals-badge")).toBeVisible();
  await page.goto("/proposals");
  const list = page.getByTestId("proposal-list");
  await expect(list.getByTestId(`proposal-${soul}`)).toContainText(`${agent.name} · SOUL.md`);
  await expect(list.getByTestId(`proposal-${soul}`)).toContainText("The user keeps asking for brevity");
  await expect(list.getByTestId(`proposal-${soul}`)).toContainText("agent-proposed");

  // 1. Approve as proposed.
  await list.getByTestId(`proposal-${soul}`).click();
  const review = page.getByTestId("proposal-review");
  await expect(review).toContainText(`${agent.name} wants to change SOUL.md`);
  await expect(review.locator(".editor.modified")).toContainText("I prefer short answers.", { timeout: 30_000 });
  await expect(review.locator(".editor.original")).toContainText("Core Values");
  await page.screenshot({ path: "test-results/proposals-review.png" });
  await page.getByTestId("approve-note").fill("Agreed");
  await page.getByTestId("approve-proposal").click();
  await expect(page.getByText("Approved: version 2")).toBeVisible();
  expect((await identityFile(agent.id, "soul")).content).toBe("# SOUL.md\n\nI prefer short answers.\n");

  // 2. Edit the proposed side, then approve the edit.
  await list.getByTestId(`proposal-${identity}`).click();
  await expect(review).toContainText("wants to change IDENTITY.md");
  const modified = review.locator(".editor.modified .view-lines");
  await expect(modified).toContainText("Name: Quill", { timeout: 30_000 });
  await modified.click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.insertText("Emoji: 🪶\n");
  await expect(page.getByTestId("approve-proposal")).toHaveText("Approve edited");
  await page.getByTestId("approve-proposal").click();
  await expect(page.getByText("Approved with your edits: version 2")).toBeVisible();
  const approvedIdentity = await identityFile(agent.id, "identity");
  expect(approvedIdentity.content).toContain("Name: Quill");
  expect(approvedIdentity.content).toContain("Emoji: 🪶");
  expect((await apiCall("GET", `/api/v1/proposals/${identity}`)).body).toMatchObject({ status: "approved", edited: true });

  // 3. Reject with a note.
  await list.getByTestId(`proposal-${user}`).click();
  await expect(review).toContainText("wants to change USER.md");
  await page.getByTestId("reject-proposal").click();
  await expect(page.getByTestId("confirm-reject")).toBeDisabled();
  // Why the Reject button waits is said beside the box.
  await expect(page.getByRole("dialog")).toContainText("Required");
  await page.keyboard.press("Escape");
  // The note typed beside the buttons goes into the dialog rather than being lost.
  await page.getByTestId("approve-note").fill("No evidence for this; ask the user first");
  await page.getByTestId("reject-proposal").click();
  await expect(page.getByTestId("reject-note")).toHaveValue("No evidence for this; ask the user first");
  await page.getByTestId("confirm-reject").click();
  await expect(page.getByText("Rejected; the note is kept")).toBeVisible();
  const userFile = await identityFile(agent.id, "user");
  expect(userFile.versionNumber).toBe(1);
  expect((await apiCall("GET", `/api/v1/proposals/${user}`)).body).toMatchObject({
    status: "rejected",
    reviewNote: "No evidence for this; ask the user first",
  });
  await expect(list.getByTestId(`proposal-${user}`)).toBeHidden();

  // Decided proposals stay browsable.
  await page.getByTestId("proposal-filter-rejected").click();
  await list.getByTestId(`proposal-${user}`).click();
  await expect(page.getByTestId("proposal-decision")).toContainText("rejected by admin@test.local");
  await expect(page.getByTestId("proposal-decision")).toContainText("No evidence for this");
  await page.getByTestId("proposal-filter-approved").click();
  await expect(list.getByTestId(`proposal-${identity}`)).toBeVisible();
  await list.getByTestId(`proposal-${identity}`).click();
  await expect(page.getByTestId("proposal-decision")).toContainText("(with edits)");
});

test("a proposal whose base moved shows the three-way merge to resolve", async ({ page }) => {
  const agent = await newAgent({ securityProfile: "standard" });
  const token = workerToken(agent.id);
  const base = await identityFile(agent.id, "soul");
  const id = await propose(token, agent.id, "soul", base.content.replace("## Core Values", "## Core Values (agent)"), "Rename the heading");
  await apiCall("PUT", `/api/v1/agents/${agent.id}/identity/soul`, {
    content: base.content.replace("## Core Values", "## Core Values (operator)"),
    baseVersionId: base.versionId,
  });

  await signIn(page);
  await page.goto("/proposals");
  // Its change overlaps the operator's: it is listed under Conflict, not Pending, and counted there.
  await expect(page.getByTestId(`proposal-${id}`)).toHaveCount(0);
  await page.getByTestId("proposal-filter-conflict").click();
  await expect(page.getByTestId("proposal-filter-conflict")).not.toHaveText(/^conflict$/i);
  await page.getByTestId(`proposal-${id}`).click();
  await expect(page.getByTestId("proposal-moved")).toContainText("The changes overlap");
  await expect(page.getByTestId("proposal-review").locator(".editor.modified")).toContainText("<<<<<<< current", { timeout: 30_000 });
  await expect(page.getByTestId("approve-proposal")).toBeDisabled();
  await page.screenshot({ path: "test-results/proposals-conflict.png" });
});

test("approving a proposal whose file moved on meanwhile stays on that proposal, now under Conflict, with its merge", async ({ page }) => {
  const agent = await newAgent({ securityProfile: "standard" });
  const token = workerToken(agent.id);
  const base = await identityFile(agent.id, "soul");
  const soul = await propose(
    token,
    agent.id,
    "soul",
    base.content.replace("## Core Values", "## Core Values (agent)"),
    "Rename the heading",
  );
  const user = await identityFile(agent.id, "user");
  const other = await propose(token, agent.id, "user", `${user.content}\nPrefers short answers.\n`, "A preference");

  await signIn(page);
  await page.goto("/proposals");
  await page.getByTestId(`proposal-${soul}`).click();
  const review = page.getByTestId("proposal-review");
  await expect(review).toContainText("Rename the heading");
  // While it is on screen, an operator changes the same heading.
  await apiCall("PUT", `/api/v1/agents/${agent.id}/identity/soul`, {
    content: base.content.replace("## Core Values", "## Core Values (operator)"),
    baseVersionId: base.versionId,
  });
  await page.getByTestId("approve-proposal").click();

  await expect(page.getByText("The file changed since this proposal was made")).toBeVisible();
  await expect(page.getByTestId("proposal-filter-conflict")).toHaveAttribute("aria-selected", "true");
  await expect(review).toContainText("Rename the heading");
  await expect(page.getByTestId("proposal-moved")).toContainText("The changes overlap");
  await expect(review.locator(".editor.modified")).toContainText("<<<<<<< current", { timeout: 30_000 });
  // The other proposal was not touched.
  expect((await apiCall<{ status: string }>("GET", `/api/v1/proposals/${other}`)).body.status).toBe("pending");
});

test("a proposal written in a task an operator granted that file reads operator-requested, one the agent made on its own agent-proposed", async ({
  page,
}) => {
  const agent = await newAgent({ securityProfile: "standard" });
  const token = workerToken(agent.id);
  const own = await propose(token, agent.id, "identity", "# IDENTITY.md\n\nName: Wren\n", "I picked a name");
  const task = await apiCall<{ task: { id: string } }>("POST", "/api/v1/tasks", {
    title: "Rewrite your SOUL.md as we discussed",
    agentId: agent.id,
    identityGrant: ["SOUL"],
  });
  expect(task.status).toBe(201);
  const claimed = await apiCall<{ task: { id: string } }>("GET", "/api/worker/poll?waitMs=2000", undefined, token);
  expect(claimed.body.task.id).toBe(task.body.task.id);
  const base = await identityFile(agent.id, "soul");
  // The grant would let it write SOUL.md directly; it asks for a review instead.
  const asked = await apiCall<{ proposalId: string }>(
    "PUT",
    "/api/worker/identity/soul",
    { content: "# SOUL.md\n\nAs discussed.\n", baseVersionId: base.versionId, reason: "as the operator asked", mode: "propose" },
    token,
  );
  expect(asked.status).toBe(202);

  await signIn(page);
  await page.goto("/proposals");
  const list = page.getByTestId("proposal-list");
  await expect(list.getByTestId(`proposal-${asked.body.proposalId}`)).toContainText("operator-requested");
  await expect(list.getByTestId(`proposal-${own}`)).toContainText("agent-proposed");
  await list.getByTestId(`proposal-${asked.body.proposalId}`).click();
  await expect(page.getByTestId("proposal-review").getByText("operator-requested")).toHaveAttribute("title", /operator granted/);
});
