/**
 * SUPPORT_HOURS: whether people answer at a given moment, in the configured time
 * zone, and what the widget then tells a customer whose question was escalated.
 */
import { describeHours, SupportHours } from '../../src/chat/support-hours';
import { BUILT_IN_WORDS } from '../../src/shop/words';
import { loadConfig } from '../../src/config';
import { handoffNoteText } from '../../web/handoff-live';

describe('support hours', () => {
  const weekdays = new SupportHours('mon-fri 09:00-17:00', 'Europe/Berlin');

  it('is open on a weekday inside the hours, in the configured time zone', () => {
    // Monday 23 November 2026, 08:30 UTC = 09:30 in Berlin (UTC+1 in winter).
    expect(weekdays.availability(new Date('2026-11-23T08:30:00Z'))).toEqual({
      open: true,
      hours: 'mon-fri 09:00-17:00 Europe/Berlin',
      schedule: { time_zone: 'Europe/Berlin', weekly: [{ days: 'mon-fri', hours: '09:00-17:00' }] },
    });
  });

  it('is closed before the start, from the (exclusive) end on, and on the weekend', () => {
    expect(weekdays.availability(new Date('2026-11-23T07:59:00Z')).open).toBe(false); // 08:59 Berlin
    expect(weekdays.availability(new Date('2026-11-23T16:00:00Z')).open).toBe(false); // 17:00 Berlin
    expect(weekdays.availability(new Date('2026-11-28T10:00:00Z')).open).toBe(false); // Saturday
  });

  it('understands day lists and ranges that wrap around the week', () => {
    const weekend = new SupportHours('fri-sun, tue 10:00-24:00', 'UTC');
    expect(weekend.availability(new Date('2026-11-29T23:59:00Z')).open).toBe(true); // Sunday
    expect(weekend.availability(new Date('2026-11-24T12:00:00Z')).open).toBe(true); // Tuesday
    expect(weekend.availability(new Date('2026-11-23T12:00:00Z')).open).toBe(false); // Monday
  });

  it('promises nothing and refuses nothing when no hours are configured', () => {
    expect(new SupportHours(null, 'UTC').availability()).toEqual({ open: null, hours: null, schedule: null });
  });

  it('refuses malformed hours and unknown time zones at start, naming the variable', () => {
    expect(() => loadConfig({ SUPPORT_HOURS: 'weekdays 9-5' })).toThrow(/SUPPORT_HOURS/);
    expect(() => loadConfig({ SUPPORT_HOURS: 'mon-fri 09:00-17:00', SUPPORT_TIMEZONE: 'Mars/Olympus' })).toThrow(/SUPPORT_TIMEZONE/);
    expect(loadConfig({ SUPPORT_HOURS: 'mon-fri 09:00-17:00', SUPPORT_TIMEZONE: 'Europe/Berlin' }).handoff).toMatchObject({
      supportHours: 'mon-fri 09:00-17:00',
      supportTimezone: 'Europe/Berlin',
    });
  });
});

describe('support hours that cross midnight', () => {
  // Wednesday 25 November 2026 in New York (UTC-5): 23:00, then 01:00 on Thursday, then 12:00.
  const at = (local: string) => new Date(`${local}-05:00`);

  it('SUPPORT_HOURS "mon-sun 22:00-02:00" is open inside the range, on both sides of midnight, and closed outside it', () => {
    const nights = new SupportHours('mon-sun 22:00-02:00', 'America/New_York');
    expect(nights.availability(at('2026-11-25T23:00:00')).open).toBe(true);
    expect(nights.availability(at('2026-11-26T01:00:00')).open).toBe(true);
    expect(nights.availability(at('2026-11-26T12:00:00')).open).toBe(false);
    expect(nights.availability(at('2026-11-26T02:00:00')).open).toBe(false); // the end is exclusive
    expect(nights.availability(at('2026-11-25T21:59:00')).open).toBe(false);
  });

  it("a range that starts on the last day runs into the next day only: Friday night's hours reach Saturday 01:00, not Sunday's", () => {
    const fridayNight = new SupportHours('fri 22:00-02:00', 'America/New_York');
    expect(fridayNight.availability(at('2026-11-27T23:00:00')).open).toBe(true); // Friday 23:00
    expect(fridayNight.availability(at('2026-11-28T01:00:00')).open).toBe(true); // Saturday 01:00
    expect(fridayNight.availability(at('2026-11-29T01:00:00')).open).toBe(false); // Sunday 01:00
    expect(fridayNight.availability(at('2026-11-27T01:00:00')).open).toBe(false); // Friday 01:00 (Thursday had none)
  });

  it("a shop file's schedule: several ranges per weekday in the shop's time zone, and closed dates", () => {
    const hours = SupportHours.fromSchedule({
      timeZone: 'America/New_York',
      entries: [
        { days: 'mon-fri', hours: '09:00-17:00' },
        { days: 'wed', hours: '22:00-02:00' },
      ],
      closedDates: ['2026-11-26'],
    });
    expect(hours.availability(at('2026-11-25T12:00:00'))).toMatchObject({ open: true, hours: 'mon-fri 09:00-17:00, wed 22:00-02:00 America/New_York' });
    expect(plain(describeHours(hours.schedule(), 'de'))).toBe('Mo–Fr 09:00–17:00 Uhr und Mi 22:00–02:00 Uhr (Nordamerikanische Ostküstenzeit)');
    expect(hours.availability(at('2026-11-25T23:00:00')).open).toBe(true);
    // Thursday 26 November is closed, but Wednesday's night range still runs until 02:00.
    expect(hours.availability(at('2026-11-26T01:00:00')).open).toBe(true);
    expect(hours.availability(at('2026-11-26T12:00:00')).open).toBe(false);
    expect(hours.availability(at('2026-11-27T12:00:00')).open).toBe(true);
  });

  it('a closed date closes the range that starts on it, also after midnight', () => {
    const hours = SupportHours.fromSchedule({ timeZone: 'UTC', entries: [{ days: 'mon-sun', hours: '22:00-02:00' }], closedDates: ['2026-12-24'] });
    expect(hours.availability(new Date('2026-12-24T23:00:00Z')).open).toBe(false);
    expect(hours.availability(new Date('2026-12-25T01:00:00Z')).open).toBe(false);
    expect(hours.availability(new Date('2026-12-25T23:00:00Z')).open).toBe(true);
  });
});

/** ICU writes some spaces as narrow or no-break ones ("9:00\u202fAM"): compared as plain spaces. */
const plain = (text: string | null) => text?.replace(/[\u00a0\u2009\u202f]/g, ' ') ?? null;

describe("the widget's escalation note", () => {
  it('offers a person in this chat while people answer, or when no hours are set', () => {
    expect(handoffNoteText({ open: true, hours: 'mon-fri 09:00-17:00 UTC' }).text).toContain('their reply will appear right here');
    expect(handoffNoteText(null).text).toContain('their reply will appear right here');
  });

  const lisbon = { time_zone: 'Europe/Lisbon', weekly: [{ days: 'mon-fri', hours: '09:00-18:00' }] };

  it("uses the shop file's outside-hours note, its first sentence as the lead, with the hours written for the reader", () => {
    const note = handoffNoteText({ open: false, hours: 'mon-fri 09:00-18:00 Europe/Lisbon', schedule: lisbon }, 'Our gardeners are away. They answer {hours} and will reply here.');
    expect({ ...note, text: plain(note.text) }).toEqual({ lead: 'Our gardeners are away. ', text: 'They answer Mon–Fri 9:00 AM – 6:00 PM (Western European Time) and will reply here.' });
    expect(handoffNoteText({ open: true, hours: 'mon-fri 09:00-18:00 UTC' }, 'Away. {hours}').text).toContain('their reply will appear right here');
  });

  it('says the team is offline, and when it answers, outside support hours, in the reader\'s language', () => {
    const note = handoffNoteText({ open: false, hours: 'mon-fri 09:00-18:00 Europe/Lisbon', schedule: lisbon });
    expect(note.lead).toContain('offline right now');
    expect(plain(note.text)).toContain('Mon–Fri 9:00 AM – 6:00 PM');
    expect(note.text).not.toContain('right here');
    const german = handoffNoteText({ open: false, hours: null, schedule: lisbon }, BUILT_IN_WORDS['de']!.widget.outside_hours, BUILT_IN_WORDS['de']!.widget.labels, 'de');
    expect(german.lead).toBe('Unser Kundenservice ist gerade nicht erreichbar. ');
    expect(plain(german.text)).toContain('Servicezeiten: Mo–Fr 09:00–18:00 Uhr (Westeuropäische Zeit).');
    // A Japanese note's first sentence ends at 。
    expect(handoffNoteText({ open: false, hours: null, schedule: lisbon }, BUILT_IN_WORDS['ja']!.widget.outside_hours, BUILT_IN_WORDS['ja']!.widget.labels, 'ja').lead).toBe(
      'ただいまサポートチームは受付時間外です。',
    );
  });

  it('says "during support hours" in the reader\'s words when the service sends no hours it can write', () => {
    expect(handoffNoteText({ open: false, hours: 'mon-fri 09:00-17:00 UTC' }).text).toContain('They answer during support hours;');
  });
});

describe("support hours written in the reader's language", () => {
  const week = (weekly: Array<{ days: string; hours: string }>, timeZone = 'Europe/Berlin') => ({ time_zone: timeZone, weekly });

  it('uses the locale\'s weekday names, clock and list words, and names the time zone', () => {
    const schedule = week([
      { days: 'mon-thu', hours: '09:00-17:00' },
      { days: 'fri', hours: '09:00-15:00' },
    ]);
    expect(plain(describeHours(schedule, 'de'))).toBe('Mo–Do 09:00–17:00 Uhr und Fr 09:00–15:00 Uhr (Mitteleuropäische Zeit)');
    expect(plain(describeHours(schedule, 'fr'))).toBe('lun.–jeu. 09:00 – 17:00 et ven. 09:00 – 15:00 (heure d’Europe centrale)');
    expect(plain(describeHours(schedule, 'en'))).toBe('Mon–Thu 9:00 AM – 5:00 PM and Fri 9:00 AM – 3:00 PM (Central European Time)');
    expect(plain(describeHours(schedule, 'ja'))).toBe('月–木 9時00分～17時00分、金 9時00分～15時00分 (中央ヨーロッパ時間)');
  });

  it('keeps a range past midnight on one day, and writes lists, wrapping runs and the end of the day', () => {
    expect(plain(describeHours(week([{ days: 'sat,sun', hours: '22:00-02:00' }]), 'de'))).toBe('Sa–So 22:00–02:00 Uhr (Mitteleuropäische Zeit)');
    expect(plain(describeHours(week([{ days: 'fri-mon', hours: '10:00-24:00' }]), 'nl'))).toBe('vr–ma 10:00–00:00 (Midden-Europese tijd)');
    expect(plain(describeHours(week([{ days: 'mon,wed,fri', hours: '08:00-12:00' }]), 'en'))).toBe('Mon, Wed, Fri 8:00 AM – 12:00 PM (Central European Time)');
    expect(plain(describeHours(week([{ days: 'mon-sun', hours: '08:00-20:00' }]), 'de'))).toBe('Mo–So 08:00–20:00 Uhr (Mitteleuropäische Zeit)');
  });

  it('is null without hours, never the configured text', () => {
    expect(plain(describeHours(null, 'de'))).toBeNull();
    expect(plain(describeHours(week([]), 'de'))).toBeNull();
    const written = describeHours(new SupportHours('mon-fri 09:00-17:00', 'Europe/Berlin').schedule(), 'de')!;
    expect(written).toBe('Mo–Fr 09:00–17:00 Uhr (Mitteleuropäische Zeit)');
    expect(written).not.toMatch(/mon|Europe\/Berlin/);
  });
});
