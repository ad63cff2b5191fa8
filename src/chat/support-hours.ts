const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

/** Whether people answer now, so the pages promise a person only when one can follow up. */
export interface SupportAvailability {
  /** null: no support hours configured, so nothing is promised or refused about time. */
  open: boolean | null;
  /** The configured hours as written, with their time zone (e.g. "mon-fri 09:00-17:00 Europe/Berlin"), or null. */
  hours: string | null;
}

/**
 * SUPPORT_HOURS ("mon-fri 09:00-17:00", "mon,wed,fri 08:30-12:00") in a time zone.
 * Days are a comma list whose items may be ranges (fri-mon wraps); the end time is
 * exclusive; 24:00 means midnight at the end of the day.
 */
export class SupportHours {
  private readonly days = new Set<number>();
  private readonly from: number;
  private readonly to: number;

  constructor(
    private readonly spec: string | null,
    private readonly timeZone: string,
  ) {
    const match = spec ? /^\s*(\S.*?)\s+(\d\d):(\d\d)\s*-\s*(\d\d):(\d\d)\s*$/.exec(spec) : null;
    this.from = match ? Number(match[2]) * 60 + Number(match[3]) : 0;
    this.to = match ? Number(match[4]) * 60 + Number(match[5]) : 0;
    if (!match) return;
    for (const part of match[1]!.toLowerCase().replace(/\s+/g, '').split(',')) {
      const [first, last = first] = part.split('-') as [string, string?];
      const start = DAYS.indexOf(first as (typeof DAYS)[number]);
      const end = DAYS.indexOf(last as (typeof DAYS)[number]);
      for (let d = start; ; d = (d + 1) % 7) {
        this.days.add(d);
        if (d === end) break;
      }
    }
  }

  availability(now = new Date()): SupportAvailability {
    if (!this.spec) return { open: null, hours: null };
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: this.timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(now)
      .reduce<Record<string, string>>((all, p) => ({ ...all, [p.type]: p.value }), {});
    const day = DAYS.indexOf(parts['weekday']!.toLowerCase().slice(0, 3) as (typeof DAYS)[number]);
    const minute = Number(parts['hour']) * 60 + Number(parts['minute']);
    const open = this.days.has(day) && minute >= this.from && minute < this.to;
    return { open, hours: `${this.spec.trim()} ${this.timeZone}` };
  }
}
