// People hear about what waits for them: an identity proposal or an offered task
// brings one notification to the alert webhook (here a small receiver speaking
// HTTP), with a link, at most once per interval (6 s here), and nothing new
// brings nothing. Its own server: the webhook and the interval are its settings.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/test-server";
import { agentWithToken, call, identity, type Target } from "./worker-helpers";

type Received = { headers: IncomingHttpHeaders; body: string; at: number };
const received: Received[] = [];
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    received.push({ headers: req.headers, body, at: Date.now() });
    res.end("ok");
  });
});

let running: TestServer;
let target: Target;
const INTERVAL_MS = 6_000;

async function waitForCount(count: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (received.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${received.length} notification(s) came`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return received[count - 1] as Received;
}

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as AddressInfo).port;
  running = await startTestServer({
    env: {
      ALERT_WEBHOOK_URL: `http://127.0.0.1:${port}/ntfy/swarm`,
      ALERT_WEBHOOK_FORMAT: "ntfy",
      SWARMDECK_NOTIFY_CHECK_MS: "300",
      SWARMDECK_NOTIFY_INTERVAL_MINUTES: String(INTERVAL_MS / 60_000),
    },
  });
  target = running;
});
afterAll(async () => {
  await running?.stop();
  receiver.close();
});

describe("waiting-work notifications", { timeout: 90_000 }, () => {
  it("notifies once per interval when proposals and offered tasks wait, with a link", async () => {
    const agent = await agentWithToken(target, { securityProfile: "standard" });
    const soul = await identity(target, agent.id, "soul");
    const proposed = await call(
      target,
      "PUT",
      "/api/worker/identity/soul",
      { content: `${soul.content}\n- Be kinder.\n`, baseVersionId: soul.versionId, reason: "be kinder", trigger: "agent" },
      agent.token,
    );
    expect(proposed.status).toBe(202);

    const first = await waitForCount(1);
    expect(first.headers.title).toBe("Swarmdeck: 1 identity proposal waiting");
    expect(first.headers.click).toBe(`${target.baseUrl}/proposals`);
    expect(first.headers["content-type"]).toMatch(/^text\/plain/);
    expect(first.body).toContain(`SOUL of ${agent.name}: be kinder`);
    expect(first.body).toContain(`${target.baseUrl}/proposals`);

    // Something new within the interval: no second notification until it has passed.
    const offered = await call(
      target,
      "POST",
      "/api/worker/tasks",
      { title: "Add a cache to the parser", tags: ["proposal"] },
      agent.token,
    );
    expect(offered.status).toBe(201);
    const second = await waitForCount(2);
    expect(second.at - first.at).toBeGreaterThanOrEqual(INTERVAL_MS - 500);
    expect(second.headers.title).toBe("Swarmdeck: 1 identity proposal and 1 offered task waiting");
    expect(second.body).toContain(`Add a cache to the parser (from ${agent.name})`);
    expect(second.body).toContain(`${target.baseUrl}/tasks?status=offered`);

    // Nothing new: nothing more, however long it waits.
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS + 2_000));
    expect(received).toHaveLength(2);
  });
});
