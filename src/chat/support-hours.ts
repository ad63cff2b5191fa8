const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const MINUTES_PER_DAY = 24 * 60;

/** Whether people answer now, so the pages promise a person only when one can follow up. */
export interface SupportAvailability {
  /** null: no support hours configured, so nothing is promised or refused about time. */
  open: boolean | null;
  /** The configured hours as written, with their time zone (e.g. "mon-fri 09:00-17:00 Europe/Berlin"), for people who run the shop; or null. */
  hours: string | null;
  /** The same hours for customers' pages to write in the reader's language (describeHours), or null. */
  schedule: WeeklyHours | null;
}

/** A week of support hours as data: entries of days and a time range, in one time zone. */
export interface WeeklyHours {
  time_zone: string;
  /** e.g. [{ days: 'mon-fri', hours: '09:00-17:00' }] */
  weekly: Array<{ days: string; hours: string }>;
}

/**
 * A week of support hours: entries of days (`mon-fri`, `sat,sun`, `fri-mon` wraps)
 * and a time range (`09:00-17:00`; `22:00-02:00` crosses midnight into the next
 * day; the end is exclusive; `24:00` is the end of the day), in one time zone,
 * and dates (YYYY-MM-DD, in that zone) on which nobody answers.
 */
export interface SupportSchedule {
  /** e.g. [{ days: 'mon-fri', hours: '09:00-17:00' }, { days: 'sat', hours: '10:00-14:00' }] */
  entries: Array<{ days: string; hours: string }>;
  timeZone: string;
  /** A range that starts on a closed date is closed, also after midnight. */
  closedDates?: string[];
}

/** One opening: starts on `day` at `from` minutes and lasts until `to` minutes (above 1440: into the next day). */
interface Opening {
  day: number;
  from: number;
  to: number;
}

/** `mon-fri`, `sat,sun`, `fri-mon`: the weekday numbers (0 = Sunday), or null when a name is not a day. */
export function parseDays(spec: string): number[] | null {
  const days = new Set<number>();
  for (const part of spec.toLowerCase().replace(/\s+/g, '').split(',')) {
    const [first, last = first, extra] = part.split('-');
    const start = DAYS.indexOf(first as (typeof DAYS)[number]);
    const end = DAYS.indexOf(last as (typeof DAYS)[number]);
    if (start < 0 || end < 0 || extra !== undefined) return null;
    for (let d = start; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === end) break;
    }
  }
  return [...days];
}

/** `09:00-17:00` as minutes from midnight; an end at or before the start crosses midnight (to > 1440). Null when malformed. */
export function parseTimeRange(spec: string): { from: number; to: number } | null {
  const match = /^\s*([01]\d|2[0-3]):([0-5]\d)\s*-\s*([01]\d|2[0-4]):([0-5]\d)\s*$/.exec(spec);
  if (!match) return null;
  const from = Number(match[1]) * 60 + Number(match[2]);
  const end = Number(match[3]) * 60 + Number(match[4]);
  if (end > MINUTES_PER_DAY) return null;
  if (end === from) return null;
  return { from, to: end > from ? end : end + MINUTES_PER_DAY };
}

/**
 * Support hours in a time zone: from SUPPORT_HOURS ("mon-fri 09:00-17:00",
 * "mon-sun 22:00-02:00") and SUPPORT_TIMEZONE, or from a shop file's schedule
 * (SupportHours.fromSchedule). A range that crosses midnight is open until its
 * end on the next day.
 */
export class SupportHours {
  private readonly openings: Opening[] = [];
  private readonly closed: Set<string>;
  private readonly timeZone: string;
  private description: string | null;
  private readonly entries: WeeklyHours['weekly'] = [];

  constructor(spec: string | null, timeZone: string) {
    const match = spec ? /^\s*(\S.*?)\s+(\d\d:\d\d\s*-\s*\d\d:\d\d)\s*$/.exec(spec) : null;
    this.timeZone = timeZone;
    this.closed = new Set();
    this.description = spec && match ? `${spec.trim()} ${timeZone}` : null;
    if (match) this.add(match[1]!, match[2]!);
  }

  /** The shop file's hours. Entries are assumed valid (the shop file's schema checked them); a bad one opens nothing. */
  static fromSchedule(schedule: SupportSchedule): SupportHours {
    const hours = new SupportHours(null, schedule.timeZone);
    for (const entry of schedule.entries) hours.add(entry.days, entry.hours);
    for (const date of schedule.closedDates ?? []) hours.closed.add(date);
    const written = schedule.entries.map((e) => `${e.days} ${e.hours}`).join(', ');
    hours.description = schedule.entries.length > 0 ? `${written} ${schedule.timeZone}` : null;
    return hours;
  }

  private add(days: string, range: string): void {
    const dayList = parseDays(days);
    const times = parseTimeRange(range);
    if (!dayList || !times) return;
    for (const day of dayList) this.openings.push({ day, ...times });
    this.entries.push({ days, hours: range });
  }

  /** The hours as data for customers' pages, or null when none are set. */
  schedule(): WeeklyHours | null {
    return this.description ? { time_zone: this.timeZone, weekly: this.entries.map((e) => ({ ...e })) } : null;
  }

  availability(now = new Date()): SupportAvailability {
    if (!this.description) return { open: null, hours: null, schedule: null };
    const today = this.localTime(now);
    const yesterday = this.localTime(new Date(now.getTime() - MINUTES_PER_DAY * 60_000));
    const open = this.openings.some(
      (o) =>
        // A range that started today, or one that started yesterday and runs past midnight.
        (o.day === today.day && !this.closed.has(today.date) && today.minute >= o.from && today.minute < o.to) ||
        (o.day === yesterday.day && !this.closed.has(yesterday.date) && today.minute + MINUTES_PER_DAY >= o.from && today.minute + MINUTES_PER_DAY < o.to),
    );
    return { open, hours: this.description, schedule: this.schedule() };
  }

  /** The weekday, date (YYYY-MM-DD) and minute of the day at `moment` in the time zone. */
  private localTime(moment: Date): { day: number; date: string; minute: number } {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: this.timeZone,
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(moment)
      .reduce<Record<string, string>>((all, p) => ({ ...all, [p.type]: p.value }), {});
    return {
      day: DAYS.indexOf(parts['weekday']!.toLowerCase().slice(0, 3) as (typeof DAYS)[number]),
      date: `${parts['year']}-${parts['month']}-${parts['day']}`,
      minute: Number(parts['hour']) * 60 + Number(parts['minute']),
    };
  }
}

/** Monday first, as customers read a week (days are numbered from Sunday = 0). */
const WEEK_FROM_MONDAY = [1, 2, 3, 4, 5, 6, 0];

/**
 * Support hours written for a reader in `locale`, with the locale's own weekday names, times
 * and list words (Intl): "Mo–Fr 09:00–17:00 Uhr und Sa 10:00–14:00 Uhr (Mitteleuropäische
 * Zeit)", "Mon–Fri 9:00 AM – 5:00 PM (Central European Time)". Null when there are none.
 * Pure, so the widget writes them in its language as the service does in the conversation's.
 */
export function describeHours(schedule: WeeklyHours | null | undefined, locale: string): string | null {
  if (!schedule || schedule.weekly.length === 0) return null;
  const weekday = new Intl.DateTimeFormat(locale, { weekday: 'short', timeZone: 'UTC' });
  const clock = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });
  // 7 January 2024 was a Sunday: day d of the week is 7 + d January, at a minute from its midnight.
  const at = (day: number, minute = 0) => new Date(Date.UTC(2024, 0, 7 + day, 0, minute));
  const parts = schedule.weekly.flatMap((entry) => {
    const days = parseDays(entry.days);
    const times = parseTimeRange(entry.hours);
    if (!days || !times) return [];
    const dayText = dayRuns(days)
      .map((run) => (run.length === 1 ? weekday.format(at(run[0]!)) : `${weekday.format(at(run[0]!))}–${weekday.format(at(run[run.length - 1]!))}`))
      .join(', ');
    return [`${dayText} ${timeRange(clock, at(1, times.from), at(1, times.to % MINUTES_PER_DAY))}`];
  });
  if (parts.length === 0) return null;
  return `${new Intl.ListFormat(locale, { type: 'conjunction' }).format(parts)} (${zoneName(schedule.time_zone, locale)})`;
}

/**
 * Two times of one day as the locale writes a range; an end before the start (a range that
 * runs past midnight) is kept on the same day, or the range would be written with both dates.
 * Engines that refuse a range that ends before it starts get the two times with a dash.
 */
function timeRange(clock: Intl.DateTimeFormat, from: Date, to: Date): string {
  try {
    return clock.formatRange(from, to);
  } catch {
    return `${clock.format(from)}–${clock.format(to)}`;
  }
}

/** Days as runs of consecutive weekdays, Monday first (a run may wrap from Sunday to Monday only as written: fri-mon). */
function dayRuns(days: number[]): number[][] {
  const wanted = new Set(days);
  // Start where a run starts: a wanted day whose previous day is not wanted (all seven: Monday).
  const starts = WEEK_FROM_MONDAY.filter((d) => wanted.has(d) && !wanted.has((d + 6) % 7));
  if (starts.length === 0) return [WEEK_FROM_MONDAY];
  return starts.map((start) => {
    const run = [start];
    for (let d = (start + 1) % 7; wanted.has(d) && d !== start; d = (d + 1) % 7) run.push(d);
    return run;
  });
}

/**
 * The time zone's name in the reader's language ("Mitteleuropäische Zeit"), else its IANA name.
 * A zone without a regional name (UTC) comes back from ICU as an offset: its own name then.
 */
function zoneName(timeZone: string, locale: string): string {
  const name = (style: 'longGeneric' | 'long') =>
    new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: style }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName')?.value;
  try {
    const generic = name('longGeneric');
    return (generic && /^(?:GMT|UTC)[+-−]/.test(generic) ? name('long') : generic) ?? timeZone;
  } catch {
    return timeZone;
  }
}
