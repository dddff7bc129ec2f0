// Every Monaco editor keeps every keystroke: text typed at machine speed and pasted
// is saved exactly (compared with the version fetched through the API), Ctrl/Cmd+S
// saves, and unsaved text is guarded on every way out of the page.
import type { Page } from "@playwright/test";
import { identityFile, newAgent, workerToken } from "./identity-support";
import { apiCall, expect, signIn, test, toast } from "./support/fixtures";

test.describe.configure({ mode: "serial", timeout: 180_000 });

let page: Page;
test.beforeAll(async ({ browser }) => {
  page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await signIn(page);
});
test.afterAll(async () => page.context().close());

/**
 * Opens `path`. After a save the unsaved-changes guard drops the history entry it
 * pushed (components/unsaved-guard.tsx, history.back()), and a goto that starts while
 * that step is still pending is aborted (net::ERR_ABORTED): then it is made again.
 */
async function open(path: string) {
  await expect(async () => {
    await page.goto(path);
  }).toPass({ timeout: 30_000 });
}

/** Focuses the editor in `scope` and waits for Monaco to own the keyboard. */
async function focusEditor(scope: string, nth: "first" | "last" = "first") {
  const lines = page.locator(`${scope} .monaco-editor .view-lines`)[nth]();
  await expect(lines).toBeVisible({ timeout: 60_000 });
  await lines.click();
  await expect(page.locator(`${scope} .monaco-editor.focused`)).toHaveCount(1);
}

/** A real paste: a ClipboardEvent carrying the text, on the element Monaco listens to. */
async function paste(text: string) {
  await page.evaluate((value) => {
    const data = new DataTransfer();
    data.setData("text/plain", value);
    document.activeElement?.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

/**
 * Replaces the focused editor's text with `text` by select-all and paste, and waits
 * until the editor shows `marker` (a word of `text`) on a line of its own making.
 * On a slow machine a paste dispatched while Monaco is still moving focus to its
 * input after a tab switch can land nowhere; the editor is emptied first, so a
 * paste that did not land is seen (and made again) instead of typed over.
 */
async function replaceByPaste(scope: string, text: string, marker: string) {
  const lines = page.locator(`${scope} .monaco-editor .view-lines`).first();
  await expect(async () => {
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Delete");
    await expect(lines).not.toContainText(marker, { timeout: 2_000 });
    await paste(text);
    await expect(lines).toContainText(marker, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
}

// Plain prose and commands: nothing an editor would auto-close or auto-indent.
const TYPED = "\n## Discipline\n\nAlways run the tests before saying done.\nPrefer small commits with clear messages.\n";

test("identity editor: typed at machine speed and pasted, saved with Ctrl+S, exactly", async () => {
  const agent = await newAgent();
  await open(`/agents/${agent.id}/identity`);
  await focusEditor("[data-testid=identity-editor]");
  const pasted = "# SOUL.md\n\nI am careful and precise.\nI keep answers short.\n";
  await replaceByPaste("[data-testid=identity-editor]", pasted, "careful");
  await page.keyboard.type(TYPED, { delay: 2 });
  await page.keyboard.type("Done.", { delay: 0 });
  await page.keyboard.press("ControlOrMeta+S");
  await expect(page.getByTestId("identity-version")).toContainText("version 2");
  expect((await identityFile(agent.id, "soul")).content).toBe(`${pasted}${TYPED}Done.`);

  // The capabilities file: the same, and the YAML stays valid so it can be saved.
  await page.getByTestId("identity-tab-capabilities").click();
  const before = (await identityFile(agent.id, "capabilities")).content;
  await focusEditor("[data-testid=identity-editor]");
  await replaceByPaste("[data-testid=identity-editor]", `${before.trimEnd()}\n`, "capabilities.yaml");
  await page.keyboard.type("# checked by the e2e suite\n# typed at machine speed", { delay: 1 });
  await page.getByTestId("identity-save").click();
  await expect(toast(page, "Saved capabilities.yaml")).toBeVisible();
  expect((await identityFile(agent.id, "capabilities")).content).toBe(
    `${before.trimEnd()}\n# checked by the e2e suite\n# typed at machine speed`,
  );
});

test("identity editor: what is typed while a save is on its way stays in the editor, unsaved, and the next save keeps it", async () => {
  const agent = await newAgent();
  await open(`/agents/${agent.id}/identity`);
  await focusEditor("[data-testid=identity-editor]");
  const first = "# SOUL.md\n\nI check my work.\n";
  await replaceByPaste("[data-testid=identity-editor]", first, "check my work");
  // The save's request is held until the second sentence has been typed.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached = () => {};
  const arrived = new Promise<void>((resolve) => {
    reached = resolve;
  });
  await page.route(`**/api/v1/agents/${agent.id}/identity/soul`, async (route) => {
    if (route.request().method() === "PUT") {
      reached();
      await held;
    }
    await route.continue();
  });
  await page.keyboard.press("ControlOrMeta+S");
  await arrived;
  await page.keyboard.type("I say what I did not do.", { delay: 2 });
  release();
  await expect(toast(page, "Saved SOUL.md")).toBeVisible();
  await expect(page.getByTestId("identity-version")).toContainText("version 2");
  await page.unroute(`**/api/v1/agents/${agent.id}/identity/soul`);

  const editor = page.locator("[data-testid=identity-editor] .monaco-editor .view-lines");
  await expect(editor).toContainText("I say what I did not do.");
  await expect(page.getByTestId("identity-tab-soul")).toContainText("unsaved changes");
  await expect(page.getByTestId("identity-save")).toBeEnabled();
  expect((await identityFile(agent.id, "soul")).content).toBe(first);

  await page.keyboard.press("ControlOrMeta+S");
  await expect(page.getByTestId("identity-version")).toContainText("version 3");
  expect((await identityFile(agent.id, "soul")).content).toBe(`${first}I say what I did not do.`);
});

test("setup script: typed and pasted, saved with Ctrl+S, exactly", async () => {
  await open("/settings");
  await focusEditor("[data-testid=code-editor]");
  const pasted = "#!/bin/bash\nset -eu\n";
  await page.keyboard.press("ControlOrMeta+A");
  await paste(pasted);
  await page.keyboard.type("export PIP_NO_INPUT=1\necho ready at machine speed", { delay: 0 });
  await page.keyboard.press("ControlOrMeta+S");
  await expect(page.getByText("Global setup script saved")).toBeVisible();
  const saved = await apiCall<{ entries: { value: string }[] }>("GET", "/api/v1/config?scope=global&key=SETUP_SCRIPT");
  expect(saved.body.entries[0]?.value).toBe(`${pasted}export PIP_NO_INPUT=1\necho ready at machine speed`);
});

test("setup script: a save on top of one another operator made meanwhile is refused and says so; neither text is lost", async () => {
  const read = async () =>
    (await apiCall<{ entries: { value: string }[] }>("GET", "/api/v1/config?scope=global&key=SETUP_SCRIPT")).body.entries[0]?.value;
  const setByOther = (value: string) => apiCall("PUT", "/api/v1/config", { scope: "global", key: "SETUP_SCRIPT", value });
  expect((await setByOther("#!/bin/bash\necho base\n")).status).toBe(200);
  await open("/settings");
  const editor = page.locator("[data-testid=code-editor] .monaco-editor .view-lines");
  await expect(editor).toContainText("echo base", { timeout: 60_000 });
  await focusEditor("[data-testid=code-editor]");
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("\necho mine", { delay: 1 });
  // Another operator saves first, in another browser.
  const theirs = "#!/bin/bash\necho base\necho theirs\n";
  expect((await setByOther(theirs)).status).toBe(200);
  await page.keyboard.press("ControlOrMeta+S");

  const conflict = page.getByTestId("setup-script-conflict");
  await expect(conflict).toContainText("Someone else saved the global setup script");
  await expect(page.getByText("Global setup script saved")).toHaveCount(0);
  expect(await read()).toBe(theirs);
  await expect(editor).toContainText("echo mine");

  // Keeping mine is a choice made knowingly.
  await conflict.getByRole("button", { name: "Save mine over theirs" }).click();
  await expect(page.getByText("Global setup script saved")).toBeVisible();
  await expect(conflict).toHaveCount(0);
  expect(await read()).toBe("#!/bin/bash\necho base\n\necho mine");
});

test("setup script on a phone: the conflict notice reads as lines of text, its choices below it", async () => {
  const setByOther = (value: string) => apiCall("PUT", "/api/v1/config", { scope: "global", key: "SETUP_SCRIPT", value });
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    expect((await setByOther("#!/bin/bash\necho phone base\n")).status).toBe(200);
    await open("/settings");
    const editor = page.locator("[data-testid=code-editor] .monaco-editor .view-lines");
    await expect(editor).toContainText("echo phone base", { timeout: 60_000 });
    await focusEditor("[data-testid=code-editor]");
    await page.keyboard.press("ControlOrMeta+End");
    await page.keyboard.type("\necho mine", { delay: 1 });
    expect((await setByOther("#!/bin/bash\necho phone base\necho theirs\n")).status).toBe(200);
    await page.keyboard.press("ControlOrMeta+S");
    const conflict = page.getByTestId("setup-script-conflict");
    await expect(conflict).toContainText("Someone else saved the global setup script");
    // The message spans most of the notice (it had been squeezed into a column a word wide
    // beside the buttons), and both choices sit below it, on the screen.
    const message = await conflict.locator("p").boundingBox();
    const notice = await conflict.boundingBox();
    const loadTheirs = await conflict.getByRole("button", { name: "Discard mine, load theirs" }).boundingBox();
    const overwrite = await conflict.getByRole("button", { name: "Save mine over theirs" }).boundingBox();
    if (!message || !notice || !loadTheirs || !overwrite) throw new Error("the conflict notice is not laid out");
    expect(message.width).toBeGreaterThan(notice.width * 0.75);
    for (const button of [loadTheirs, overwrite]) {
      expect(button.y).toBeGreaterThanOrEqual(message.y + message.height);
      expect(button.x + button.width).toBeLessThanOrEqual(390);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: "test-results/setup-script-conflict-390.png" });
    // Settled, so the next test starts from a page with nothing unsaved.
    await conflict.getByRole("button", { name: "Discard mine, load theirs" }).click();
    await expect(conflict).toHaveCount(0);
  } finally {
    await page.setViewportSize({ width: 1400, height: 900 });
  }
});

test("proposal edit: typed at machine speed, approved edited, applied exactly", async () => {
  const agent = await newAgent({ securityProfile: "standard" });
  const token = workerToken(agent.id);
  const base = await identityFile(agent.id, "soul");
  const proposed = "# SOUL.md\n\nI prefer short answers.\n";
  const reply = await apiCall<{ proposalId: string }>(
    "PUT",
    "/api/worker/identity/soul",
    { content: proposed, baseVersionId: base.versionId, reason: "brevity", trigger: "agent" },
    token,
  );
  expect(reply.status).toBe(202);
  await open("/proposals");
  await page.getByTestId("proposal-list").getByTestId(`proposal-${reply.body.proposalId}`).click();
  await expect(page.getByTestId("proposal-review")).toContainText(agent.name);
  await focusEditor("[data-testid=proposal-diff] .modified");
  await page.keyboard.press("ControlOrMeta+End");
  // Typed only once the paste shows (pasted again if it landed nowhere, as on a slow machine).
  const modified = page.locator("[data-testid=proposal-diff] .modified .view-lines");
  await expect(async () => {
    if (!(await modified.textContent())?.includes("Pasted:")) await paste("Pasted: the user reads on a phone.\n");
    await expect(modified).toContainText("Pasted:", { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await page.keyboard.type(TYPED, { delay: 1 });
  await expect(page.getByTestId("approve-proposal")).toHaveText("Approve edited");
  await page.getByTestId("approve-proposal").click();
  await expect(page.getByText(/Approved with your edits/)).toBeVisible();
  expect((await identityFile(agent.id, "soul")).content).toBe(`${proposed}Pasted: the user reads on a phone.\n${TYPED}`);
  // The decision shows what was applied beside what the agent proposed.
  await page.getByTestId("proposal-filter-approved").click();
  await page.getByTestId("proposal-list").getByTestId(`proposal-${reply.body.proposalId}`).click();
  await expect(page.getByTestId("proposal-decision")).toContainText("(with edits)");
  await expect(page.getByTestId("proposal-applied")).toContainText("applied with the reviewer's edits (version 2)");
  await expect(page.locator("[data-testid=proposal-applied] .modified .view-lines")).toContainText("Pasted: the user reads on a phone.");
});

test("unsaved text is guarded on sidebar links, back links and the browser's Back", async () => {
  const agent = await newAgent();
  await open("/agents");
  await open(`/agents/${agent.id}/identity`);
  await focusEditor("[data-testid=identity-editor]");
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("\nA draft worth keeping.", { delay: 1 });
  await expect(page.getByTestId("identity-tab-soul")).toContainText("unsaved changes");

  // "Stay" keeps the page and the draft, whichever way out was tried.
  const asked: string[] = [];
  const stay = async (dialog: import("@playwright/test").Dialog) => {
    asked.push(dialog.message());
    await dialog.dismiss();
  };
  page.on("dialog", stay);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tasks" }).click();
  await expect.poll(() => asked.length).toBe(1);
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/identity`));
  await page.goBack();
  await expect.poll(() => asked.length).toBe(2);
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/identity`));
  await expect(page.locator("[data-testid=identity-editor] .view-lines")).toContainText("A draft worth keeping.");
  expect(asked[0]).toContain("SOUL.md");

  // "Leave" leaves, from the browser's Back too.
  page.off("dialog", stay);
  page.once("dialog", (dialog) => dialog.accept());
  await page.goBack();
  await expect(page).toHaveURL(/\/agents$/);
});

test("a dialog with something typed in it asks before Escape, a click outside or its close button throws it away", async () => {
  await open("/schedules");
  await page.getByTestId("new-schedule").click();
  const form = page.getByRole("dialog", { name: "New schedule" });
  // Nothing typed yet: Escape just closes.
  await page.keyboard.press("Escape");
  await expect(form).toBeHidden();

  await page.getByTestId("new-schedule").click();
  await form.getByLabel("Name").fill("Nightly triage, half written");
  const asked: string[] = [];
  page.once("dialog", async (dialog) => {
    asked.push(dialog.message());
    await dialog.dismiss();
  });
  await page.keyboard.press("Escape");
  await expect.poll(() => asked.length).toBe(1);
  expect(asked[0]).toContain("Discard");
  await expect(form.getByLabel("Name")).toHaveValue("Nightly triage, half written");

  page.once("dialog", async (dialog) => {
    asked.push(dialog.message());
    await dialog.dismiss();
  });
  await form.getByTestId("dialog-close").click();
  await expect.poll(() => asked.length).toBe(2);
  await expect(form.getByLabel("Name")).toHaveValue("Nightly triage, half written");

  page.once("dialog", (dialog) => dialog.accept());
  await page.keyboard.press("Escape");
  await expect(form).toBeHidden();
  // Opened again, it starts empty and closes without asking.
  await page.getByTestId("new-schedule").click();
  await expect(form.getByLabel("Name")).toHaveValue("");
  await page.keyboard.press("Escape");
  await expect(form).toBeHidden();
});
