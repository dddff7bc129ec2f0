"use client";

// A schedule's moments (its next run, a run's cron slot) read in the schedule's own
// time zone, the one its cron expression is written in, on the 24-hour clock the
// cron uses: "30 2 * * 1-5" in Europe/Berlin shows "Mon, Nov 30, 02:30". When the
// viewer's clock says something else, their own time follows ("01:30 your time").

const FIELDS: Intl.DateTimeFormatOptions = {
  weekday: "short",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
};

/** Throws a RangeError for a zone Intl does not know; the viewer's own (undefined) always works. */
function format(date: Date, timeZone: string | undefined, withYear: boolean): string {
  return new Intl.DateTimeFormat(undefined, { ...FIELDS, ...(withYear ? { year: "numeric" } : {}), timeZone }).format(date);
}

/** The calendar day (YYYY-MM-DD) the moment falls on in `timeZone` (the viewer's when undefined). */
function calendarDay(date: Date, timeZone: string | undefined): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(date);
}

/** The moment in `timeZone` and, when the viewer's clock differs, in theirs: both as text. */
export function scheduleTimeText(iso: string, timeZone: string): { zoned: string; local: string | null } {
  const date = new Date(iso);
  const withYear = date.getFullYear() !== new Date().getFullYear();
  const local = format(date, undefined, withYear);
  let zoned: string;
  try {
    zoned = format(date, timeZone, withYear);
  } catch {
    return { zoned: local, local: null }; // an unknown zone (a form still being typed): the viewer's time alone
  }
  if (zoned === local) return { zoned, local: null };
  // Only the time when the day is the same in both zones; the whole date otherwise.
  const sameDay = calendarDay(date, timeZone) === calendarDay(date, undefined);
  const localTime = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(date);
  return { zoned, local: sameDay ? localTime : local };
}

export function ScheduleTime({ iso, timeZone }: { iso: string; timeZone: string }) {
  const { zoned, local } = scheduleTimeText(iso, timeZone);
  return (
    <>
      <time dateTime={iso} title={`${iso} (${timeZone})`}>
        {zoned}
      </time>
      {local ? <span className="text-fg-muted"> ({local} your time)</span> : null}
    </>
  );
}
