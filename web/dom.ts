/** A child for el(): text is always added as text, never parsed as HTML. */
export type Child = Node | string | null | undefined | false;

/**
 * Creates an element with attributes and children. Server text only ever goes in
 * through text nodes, so a message can never inject markup.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  element.append(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false));
  return element;
}

/**
 * Renders an answer's plain text: paragraphs split on blank lines, and runs of
 * lines starting with "> " (the quotes the offline responder makes) as blockquotes.
 */
export function renderAnswerText(container: HTMLElement, text: string): void {
  const blocks: HTMLElement[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const runs: { quote: boolean; lines: string[] }[] = [];
    for (const line of paragraph.split('\n')) {
      const quote = /^>\s?/.test(line);
      const content = quote ? line.replace(/^>\s?/, '') : line;
      const last = runs[runs.length - 1];
      if (last?.quote === quote) last.lines.push(content);
      else runs.push({ quote, lines: [content] });
    }
    for (const run of runs) {
      const body = run.lines.join('\n').trim();
      if (body) blocks.push(el(run.quote ? 'blockquote' : 'p', {}, body));
    }
  }
  container.replaceChildren(...blocks);
}

/** A source path that is a web address becomes a link; anything else stays text. */
export function isWebAddress(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** A cited source as the API gives it: `url` (where it came from) and `page` (of a PDF) when known. */
export interface CitedSource {
  title: string;
  source: string;
  url?: unknown;
  page?: unknown;
}

/**
 * Where a cited source links to: its `url`, else its name when that is a web address; a PDF's
 * page as `#page=N`, which browsers' PDF viewers open at. Null when there is no web address.
 */
export function sourceHref(s: CitedSource): string | null {
  const address = typeof s.url === 'string' && isWebAddress(s.url) ? s.url : isWebAddress(s.source) ? s.source : null;
  if (!address) return null;
  const page = sourcePage(s);
  return page !== null && !address.includes('#') ? `${address}#page=${page}` : address;
}

/** The cited PDF page, or null. */
export function sourcePage(s: CitedSource): number | null {
  return Number.isInteger(s.page) && (s.page as number) > 0 ? (s.page as number) : null;
}
