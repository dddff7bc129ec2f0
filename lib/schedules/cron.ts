// Cron expressions (cron-parser v5, time zone aware; 5 fields only: a schedule
// never needs seconds, and a sixth field is far more often a mistake), the slots
// a schedule fires at, the shortest gap between them, and a short English reading.
import { CronExpressionParser } from "cron-parser";

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Why a cron expression or time zone is not usable, or null when it is. */
export function cronProblem(cron: string, timeZone: string): string | null {
  if (!isValidTimeZone(timeZone)) return `Unknown time zone "${timeZone}"`;
  const fields = cron.trim().split(/\s+/);
  if (fields.length === 6 && !cron.trim().startsWith("@")) {
    return "Six-field cron expressions (with seconds) are not supported: use 5 fields, minute hour day-of-month month day-of-week";
  }
  if (!cron.trim().startsWith("@") && fields.length !== 5) {
    return "A cron expression has 5 fields: minute hour day-of-month month day-of-week";
  }
  try {
    CronExpressionParser.parse(cron, { tz: timeZone, strict: false }).next();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : "Not a valid cron expression";
  }
}

/** Which field a problem from cronProblem is about: the time zone when it is not a known one, else the cron expression. */
export function cronProblemField(timeZone: string): "cron" | "timezone" {
  return isValidTimeZone(timeZone) ? "cron" : "timezone";
}

/** The first slot strictly after `after` (epoch ms). */
export function nextSlot(cron: string, timeZone: string, after: number): number {
  return CronExpressionParser.parse(cron, { tz: timeZone, currentDate: new Date(after) })
    .next()
    .getTime();
}

/** The latest slot at or before `at`, or null when there is none. */
export function latestSlotAtOrBefore(cron: string, timeZone: string, at: number): number | null {
  try {
    // prev() is strictly before its start; start 1 ms later to include `at` itself.
    return CronExpressionParser.parse(cron, { tz: timeZone, currentDate: new Date(at + 1) })
      .prev()
      .getTime();
  } catch {
    return null;
  }
}

export function upcomingSlots(cron: string, timeZone: string, after: number, count: number): number[] {
  const expression = CronExpressionParser.parse(cron, { tz: timeZone, currentDate: new Date(after) });
  const slots: number[] = [];
  for (let i = 0; i < count && expression.hasNext(); i += 1) slots.push(expression.next().getTime());
  return slots;
}

/** The shortest gap (ms) between the next `count` slots after `after`; null with fewer than two. */
export function shortestGap(cron: string, timeZone: string, after: number, count = 120): number | null {
  const slots = upcomingSlots(cron, timeZone, after, count);
  let gap: number | null = null;
  for (let i = 1; i < slots.length; i += 1) {
    const d = (slots[i] ?? 0) - (slots[i - 1] ?? 0);
    if (gap === null || d < gap) gap = d;
  }
  return gap;
}

/** Why a cron expression fires too often for the minimum interval, or null. */
export function intervalProblem(cron: string, timeZone: string, minIntervalMs: number, after: number): string | null {
  const gap = shortestGap(cron, timeZone, after);
  if (gap === null || gap >= minIntervalMs) return null;
  return `This fires every ${minutes(gap)}; a schedule may fire at most every ${minutes(minIntervalMs)} (SCHEDULE_MIN_INTERVAL_MINUTES)`;
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m === 1 ? "minute" : `${m} minutes`;
}

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** A plain reading of the common shapes ("every Monday at 09:00"); other expressions are described by their next runs. */
export function describeCron(cron: string): string | null {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return null;
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  const num = /^\d+$/;
  const time = num.test(minute) && num.test(hour) ? `${hour.padStart(2, "0")}:${minute.padStart(2, "0")}` : null;
  if (minute === "*" && hour === "*" && dom === "*" && month === "*" && dow === "*") return "every minute";
  const step = /^\*\/(\d+)$/.exec(minute);
  if (step && hour === "*" && dom === "*" && month === "*" && dow === "*") return `every ${step[1]} minutes`;
  if (num.test(minute) && hour === "*" && dom === "*" && month === "*" && dow === "*") return `every hour at minute ${minute}`;
  if (!time || month !== "*") return null;
  if (dom === "*" && dow === "*") return `every day at ${time}`;
  if (dom === "*" && dow === "1-5") return `every weekday at ${time}`;
  if (dom === "*" && /^[0-7](,[0-7])*$/.test(dow)) {
    return `every ${dow
      .split(",")
      .map((d) => DAYS[Number(d) % 7])
      .join(", ")} at ${time}`;
  }
  if (num.test(dom) && dow === "*") return `on day ${dom} of every month at ${time}`;
  return null;
}
