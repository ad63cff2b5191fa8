const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
const KNOWN_LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** A language's English name ("de" → "German"), for prompts; the code itself when ICU has no name. */
export function languageName(code: string): string {
  try {
    return LANGUAGE_NAMES.of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * Whether ICU knows the code as a language. Never throws: `Intl.DisplayNames.of` throws a
 * RangeError on a malformed code ("x", "a b", "und-"), which in a request schema's refine
 * would turn bad input into a 500.
 */
export function isKnownLanguageCode(code: string): boolean {
  try {
    return KNOWN_LANGUAGE_NAMES.of(code) !== undefined;
  } catch {
    return false;
  }
}
