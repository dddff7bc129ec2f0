import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { AlertDto } from "@/lib/contracts/metrics";
import { sendAlertWebhook, webhookRequest } from "./webhook";

const alert: AlertDto = {
  id: "a1",
  scope: "agent",
  agentId: "ag1",
  agentName: "builder",
  windowDays: 7,
  threshold: 0.3,
  failureRate: 0.4,
  failed: 4,
  total: 10,
  firedAt: "2026-11-22T00:00:00.000Z",
  resolvedAt: null,
};

describe("alert webhook", () => {
  it("posts JSON with title, message and the alert, plus ntfy headers", async () => {
    const received: Array<{ headers: Record<string, unknown>; body: string }> = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    expect(await sendAlertWebhook(alert, url)).toBe(true);
    server.close();
    const [request] = received;
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers.title).toBe("Swarmdeck: builder failure rate 40%");
    const json = JSON.parse(request?.body ?? "{}");
    expect(json.message).toBe("Agent builder failed 4 of 10 tasks (40%) over the last 7 days, above the 30% threshold.");
    expect(json.alert).toEqual(alert);
  });

  it("sends a plain-text message for ntfy", () => {
    const { init } = webhookRequest("https://ntfy.sh/swarm-alerts", alert);
    expect((init.headers as Record<string, string>)["content-type"]).toMatch(/^text\/plain/);
    expect(init.body).toMatch(/^Agent builder failed 4 of 10/);
    expect(webhookRequest("https://hooks.example.com/x", alert, "ntfy").init.body).toMatch(/^Agent builder/);
  });

  it("reports a failed delivery without throwing", async () => {
    expect(await sendAlertWebhook(alert, "http://127.0.0.1:1/nothing-listens")).toBe(false);
  });
});
