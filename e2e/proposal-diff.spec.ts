// Reviewing a proposal that rewrites most of a file: the bar above the diff says how
// much changed, steps from change to change (inline, past the removed lines to the
// added text), and switches between side by side and inline, on a phone and a desktop.
import type { Locator, Page } from "@playwright/test";
import { identityFile, newAgent, workerToken } from "./identity-support";
import { apiCall, expect, signIn, test } from "./support/fixtures";

test.describe.configure({ timeout: 120_000 });

const PHONE = { width: 390, height: 844 };

/** SOUL.md of 60 lines, then a proposal rewriting its first 30 as 25 new ones and changing line 55. */
async function rewriteProposal() {
  const agent = await newAgent({ securityProfile: "standard" });
  const old = Array.from({ length: 60 }, (_, i) => `Old value ${i + 1}: the way this agent used to work, in a few words.`);
  const base = await identityFile(agent.id, "soul");
  const saved = await apiCall("PUT", `/api/v1/agents/${agent.id}/identity/soul`, {
    content: `${old.join("\n")}\n`,
    baseVersionId: base.versionId,
  });
  expect(saved.status).toBe(200);
  const current = await identityFile(agent.id, "soul");
  const rewritten = Array.from({ length: 25 }, (_, i) => `Rewritten ${i + 1}: fresh words for the new way of working.`);
  const kept = old.slice(30);
  kept[24] = "The second change, near the end.";
  const proposed = await apiCall<{ proposalId: string }>(
    "PUT",
    "/api/worker/identity/soul",
    { content: `${[...rewritten, ...kept].join("\n")}\n`, baseVersionId: current.versionId, reason: "a rewrite", trigger: "agent" },
    workerToken(agent.id),
  );
  expect(proposed.status).toBe(202);
  return proposed.body.proposalId;
}

async function openReview(page: Page, proposalId: string) {
  await page.goto("/proposals");
  await page.getByTestId("proposal-list").getByTestId(`proposal-${proposalId}`).click();
  const diff = page.getByTestId("proposal-diff");
  await expect(diff.locator(".editor.modified .view-lines").first()).toBeVisible({ timeout: 30_000 });
  return diff;
}

/** Whether `line` is drawn wholly inside the diff editor's box (not scrolled out of it, nor absent). */
async function inView(diff: Locator, line: Locator) {
  if ((await line.count()) === 0) return false;
  const [frame, box] = [await diff.locator(".monaco-diff-editor").boundingBox(), await line.first().boundingBox()];
  return Boolean(frame && box && box.y >= frame.y && box.y + box.height <= frame.y + frame.height);
}

/** How many text columns the diff draws (inline keeps the old side's editor, but zero wide). */
async function columns(diff: Locator) {
  let drawn = 0;
  for (const side of [".editor.original", ".editor.modified"]) {
    const box = await diff.locator(side).boundingBox();
    if (box && box.width > 50) drawn++;
  }
  return drawn;
}

/** How many drawn lines of an editor run past its right edge (cut off, when the text should wrap). */
async function overflowingLines(side: Locator) {
  return side.evaluate((editor) => {
    const right = editor.getBoundingClientRect().right;
    return [...editor.querySelectorAll(".view-lines .view-line > span")].filter((line) => line.getBoundingClientRect().right > right + 1)
      .length;
  });
}

const addedLine = (diff: Locator, text: string) => diff.locator(".editor.modified .view-lines .view-line").filter({ hasText: text });

test("a rewrite's review says how much changed and steps to the added text on a phone", async ({ page }) => {
  const proposalId = await rewriteProposal();
  await signIn(page);
  await page.setViewportSize(PHONE);
  const diff = await openReview(page, proposalId);

  await expect(diff.getByTestId("diff-summary")).toHaveText("+26 lines, −31 lines in 2 changes");
  // On a phone it opens inline, one column, the removed lines first: the added text is out of view.
  await expect(diff.getByRole("button", { name: "Inline" })).toHaveAttribute("aria-pressed", "true");
  await expect.poll(() => columns(diff)).toBe(1);
  const firstAdded = addedLine(diff, "Rewritten 1:");
  expect(await inView(diff, firstAdded)).toBe(false);

  // Next change: the first added line is on screen, then the second change.
  await diff.getByRole("button", { name: "Next change" }).click();
  await expect.poll(() => inView(diff, firstAdded)).toBe(true);
  await expect(diff.getByTestId("diff-position")).toHaveText("1 of 2");
  await page.screenshot({ path: "test-results/screens/proposal-diff/phone-next.png" });
  const second = addedLine(diff, "The second change");
  await diff.getByRole("button", { name: "Next change" }).click();
  await expect.poll(() => inView(diff, second)).toBe(true);
  await expect(diff.getByTestId("diff-position")).toHaveText("2 of 2");
  // Previous goes back, and from the first, round to the last.
  await diff.getByRole("button", { name: "Previous change" }).click();
  await expect.poll(() => inView(diff, firstAdded)).toBe(true);
  await expect(diff.getByTestId("diff-position")).toHaveText("1 of 2");

  // An edit on the proposed side is counted at once.
  await firstAdded.click();
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await page.keyboard.insertText("One more line from the reviewer.");
  await expect(diff.getByTestId("diff-summary")).toHaveText("+27 lines, −31 lines in 2 changes");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
});

test("the reviewer switches a proposal's diff between side by side and inline, and the pick is kept", async ({ page }) => {
  const proposalId = await rewriteProposal();
  await signIn(page);
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(() => localStorage.removeItem("swarmdeck:diff-view"));
    const diff = await openReview(page, proposalId);
    const original = diff.locator(".editor.original");
    const modified = diff.locator(".editor.modified");
    // The review pane is narrower than two readable columns: it opens inline.
    await expect(diff.getByRole("button", { name: "Inline" })).toHaveAttribute("aria-pressed", "true");
    await expect.poll(() => columns(diff)).toBe(1);
    await page.screenshot({ path: `test-results/screens/proposal-diff/desktop-inline-${scheme}.png` });

    await diff.getByRole("button", { name: "Side by side" }).click();
    await expect(diff.getByRole("button", { name: "Side by side" })).toHaveAttribute("aria-pressed", "true");
    await expect.poll(() => columns(diff)).toBe(2);
    // Old on the left, new on the right, each a real column; the old text is there beside the new.
    await expect
      .poll(async () => {
        const [left, right] = [await original.boundingBox(), await modified.boundingBox()];
        return Boolean(left && right && left.width > 200 && right.width > 200 && left.x + left.width <= right.x + 1);
      })
      .toBe(true);
    await expect(original.locator(".view-line").filter({ hasText: "Old value 1:" }).first()).toBeVisible();
    // The old side wraps its long lines inside its column, as the new side does (none runs past the edge).
    await expect.poll(() => overflowingLines(original)).toBe(0);
    await diff.getByRole("button", { name: "Next change" }).click();
    await expect.poll(() => inView(diff, addedLine(diff, "Rewritten 1:"))).toBe(true);
    await page.screenshot({ path: `test-results/screens/proposal-diff/desktop-side-by-side-${scheme}.png` });

    // The pick is kept for the next review, on the phone too.
    await page.setViewportSize(PHONE);
    const again = await openReview(page, proposalId);
    await expect(again.getByRole("button", { name: "Side by side" })).toHaveAttribute("aria-pressed", "true");
    await expect.poll(() => columns(again)).toBe(2);
    await page.screenshot({ path: `test-results/screens/proposal-diff/phone-side-by-side-${scheme}.png` });
    await again.getByRole("button", { name: "Inline" }).click();
    await expect.poll(() => columns(again)).toBe(1);
    await expect(again.getByTestId("diff-summary")).toHaveText("+26 lines, −31 lines in 2 changes");
    await page.screenshot({ path: `test-results/screens/proposal-diff/phone-inline-${scheme}.png` });
  }
});
