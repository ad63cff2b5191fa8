import { de } from './de';
import { en } from './en';
import { es } from './es';
import { fr } from './fr';
import { it } from './it';
import { ja } from './ja';
import { nl } from './nl';
import { pl } from './pl';
import { pt } from './pt';
import { tr } from './tr';
import type { BuiltInWords } from './types';
import { zh } from './zh';

export type { BuiltInWords } from './types';

/**
 * The built-in words, one table per language (ISO 639-1): what a customer reads where
 * the shop file sets nothing for their language. docs/your-shop.md lists the English.
 */
export const BUILT_IN_WORDS: Readonly<Record<string, BuiltInWords>> = { en, de, fr, es, it, nl, pt, pl, tr, ja, zh };

/** The language every shop can fall back to: the built-in words are complete in it. */
export const BUILT_IN_FALLBACK_LANGUAGE = 'en';

export function builtInWords(language: string): BuiltInWords | undefined {
  return Object.hasOwn(BUILT_IN_WORDS, language) ? BUILT_IN_WORDS[language] : undefined;
}

/** Every field of a word set as the shop file names it (`widget.labels.send`), with its text: for the docs and the checks of the tables. */
export function wordFields(words: BuiltInWords): Array<[string, string]> {
  const { widget, ...sentences } = words;
  const { labels, ...widgetWords } = widget;
  return [
    ...Object.entries(sentences),
    ...Object.entries(widgetWords).map(([name, text]): [string, string] => [`widget.${name}`, text]),
    ...Object.entries(labels).map(([name, text]): [string, string] => [`widget.labels.${name}`, text]),
  ];
}
