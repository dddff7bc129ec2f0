// Arranging data for the identity browser tests: agents through the API, worker
// tokens minted straight into the test database (as an admin would via the UI).
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { apiCall, serverInfo, uniqueName } from "./support/fixtures";

export async function newAgent(body: Record<string, unknown> = {}) {
  const reply = await apiCall<{ agent: { id: string; name: string } }>("POST", "/api/v1/agents", { name: uniqueName("id"), ...body });
  expect(reply.status).toBe(201);
  return reply.body.agent;
}

export function workerToken(agentId: string): string {
  const token = `sdw_${randomBytes(24).toString("base64url")}`;
  const db = new Database(serverInfo().dbFile);
  try {
    db.pragma("busy_timeout = 5000");
    db.prepare("INSERT INTO WorkerToken (id, agentId, name, tokenHash, prefix, createdAt) VALUES (?, ?, ?, ?, ?, ?)").run(
      randomUUID(),
      agentId,
      "e2e worker",
      createHash("sha256").update(token).digest("hex"),
      token.slice(0, 10),
      Date.now(),
    );
  } finally {
    db.close();
  }
  return token;
}

export async function identityFile(agentId: string, slug: string) {
  const reply = await apiCall<{ content: string; versionId: string; versionNumber: number; exists: boolean }>(
    "GET",
    `/api/v1/agents/${agentId}/identity/${slug}`,
  );
  return reply.body;
}

/** Replaces the whole text of a Monaco editor inside `scope` as a user would: focus, select all, type. */
export async function replaceEditorText(page: Page, scope: string, text: string) {
  const lines = page.locator(`${scope} .monaco-editor .view-lines`).first();
  await expect(lines).toBeVisible({ timeout: 30_000 });
  await lines.click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}
