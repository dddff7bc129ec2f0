// Delivery of an alert to ALERT_WEBHOOK_URL, once per episode (when it fires).
//
// Format (ALERT_WEBHOOK_FORMAT, default "auto": "ntfy" when the URL's host
// contains "ntfy", else "json"):
// - json: POST application/json {title, message, priority, tags, alert: {...}}
//   (title/message/priority/tags are also the field names of ntfy's JSON API,
//   and the headers below are sent too, so most receivers show something useful);
// - ntfy: POST text/plain with the message as the body and Title, Priority and
//   Tags headers, which is what ntfy (and similar push services) display.
import "server-only";
import type { AlertDto } from "@/lib/contracts/metrics";

export function alertText(alert: AlertDto) {
  const who = alert.scope === "swarm" ? "The swarm" : `Agent ${alert.agentName ?? alert.agentId}`;
  const pct = (value: number) => `${Math.round(value * 1000) / 10}%`;
  return {
    title: `Swarmdeck: ${alert.scope === "swarm" ? "swarm" : (alert.agentName ?? "agent")} failure rate ${pct(alert.failureRate)}`,
    message: `${who} failed ${alert.failed} of ${alert.total} tasks (${pct(alert.failureRate)}) over the last ${alert.windowDays} days, above the ${pct(alert.threshold)} threshold.`,
  };
}

export function webhookRequest(
  url: string,
  alert: AlertDto,
  format = process.env.ALERT_WEBHOOK_FORMAT ?? "auto",
): { url: string; init: RequestInit } {
  return noticeRequest(url, { ...alertText(alert), payload: { alert } }, format);
}

/**
 * A notice: `payload` rides along in the JSON form; `priority` (default high) and
 * `tags` (default warning, swarmdeck) are ntfy's; `click` is a link to open
 * (ntfy's Click header, `click` in the JSON).
 */
export type Notice = {
  title: string;
  message: string;
  payload: Record<string, unknown>;
  priority?: "default" | "high";
  tags?: string[];
  click?: string;
};

/** Any notice (an alert, a failing setup script, waiting work) in the configured format. */
export function noticeRequest(
  url: string,
  { title, message, payload, priority = "high", tags = ["warning", "swarmdeck"], click }: Notice,
  format = process.env.ALERT_WEBHOOK_FORMAT ?? "auto",
): { url: string; init: RequestInit } {
  const resolved = format === "auto" ? (new URL(url).hostname.includes("ntfy") ? "ntfy" : "json") : format;
  // Header values must be ASCII (ntfy reads UTF-8 titles only when encoded; keep them plain).
  const headers: Record<string, string> = {
    Title: title.replace(/[^\x20-\x7e]/g, "?"),
    Priority: priority,
    Tags: tags.join(","),
    ...(click ? { Click: click } : {}),
  };
  if (resolved === "ntfy") {
    return { url, init: { method: "POST", headers: { ...headers, "content-type": "text/plain; charset=utf-8" }, body: message } };
  }
  return {
    url,
    init: {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ title, message, priority: priority === "high" ? 4 : 3, tags, ...(click ? { click } : {}), ...payload }),
    },
  };
}

/** Sends the alert; a failed delivery is logged, never retried (the banner and the audit event remain). */
export function sendAlertWebhook(alert: AlertDto, url = process.env.ALERT_WEBHOOK_URL): Promise<boolean> {
  return url ? post(webhookRequest(url, alert)) : Promise.resolve(false);
}

/** Sends a notice that is not a failure-rate alert (e.g. a worker's failing setup script). */
export function sendNoticeWebhook(notice: Notice, url = process.env.ALERT_WEBHOOK_URL): Promise<boolean> {
  return url ? post(noticeRequest(url, notice)) : Promise.resolve(false);
}

async function post(request: { url: string; init: RequestInit }): Promise<boolean> {
  try {
    const response = await fetch(request.url, { ...request.init, signal: AbortSignal.timeout(10_000) });
    if (!response.ok) console.error(`[swarmdeck] alert webhook answered ${response.status}`);
    return response.ok;
  } catch (error) {
    console.error("[swarmdeck] alert webhook failed:", error instanceof Error ? error.message : error);
    return false;
  }
}
