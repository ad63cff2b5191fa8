/**
 * The review console's "Knowledge" page: the articles the agent answers from (search,
 * read an article's chunks, upload or replace a document (markdown, text, HTML, PDF, Word), delete with a
 * confirmation), which articles answers cited most, which questions found
 * nothing, and the runs of the site syncs. Everything goes through the knowledge API with the agent key; server text
 * is inserted as text, never as HTML.
 */
import { ApiError, apiErrorOf, getJson } from './api';
import { el } from './dom';

interface ArticleSummary {
  source: string;
  title: string;
  chunk_count: number;
  content_hash: string;
  embedding_model: string;
  char_count: number;
  updated_at: string;
}

interface ArticlePage {
  sources: ArticleSummary[];
  next_after: string | null;
}

interface Article extends ArticleSummary {
  chunks: { chunk_index: number; content: string }[];
}

interface PutResult {
  source: string;
  title: string;
  outcome: 'added' | 'updated' | 'unchanged';
  chunk_count: number;
}

interface Insights {
  most_cited: { source: string; title: string; answers: number; last_cited_at: string; in_knowledge_base: boolean }[];
  unanswered: { question: string; times: number; best_confidence: number; escalated: number; last_asked_at: string; session_id: string }[];
  gaps: Gap[];
}

/** Unanswered questions grouped by what they ask (GET /api/v1/knowledge/insights). */
interface Gap {
  question: string;
  count: number;
  examples: string[];
  reasons: Record<string, number>;
  session_ids: string[];
  last_asked_at: string;
}

/** POST /api/v1/knowledge/drafts. */
interface Draft {
  title: string;
  body: string;
  source: string;
}

/** Why askings went unanswered, in the operator's words. */
const REASON_TEXT: Record<string, string> = {
  not_in_help_center: 'not in the help center',
  model: 'the model handed over',
  below_threshold: 'answered with low confidence',
};

/** One run of a site's sync (GET /api/v1/knowledge/syncs). */
interface SyncRun {
  id: number;
  site: string;
  trigger: string;
  status: 'running' | 'succeeded' | 'held' | 'failed';
  started_at: string;
  finished_at: string | null;
  counts: Record<string, number>;
  errors: { url: string; reason: string; message: string }[];
  message: string | null;
}

interface SyncRunPage {
  syncs: SyncRun[];
  next_cursor: string | null;
}

export interface KnowledgePageParts {
  /** The agent key as request headers. */
  authorization(): Record<string, string>;
  /** A refused key: the console signs the agent out. */
  onUnauthorized(): void;
  formatTime(iso: string): HTMLTimeElement;
}

const PAGE_SIZE = 50;
const SYNC_PAGE_SIZE = 20;
/** A run's counts in the order an operator reads them, with their words. */
const SYNC_COUNTS: [key: string, label: string][] = [
  ['fetched', 'fetched'],
  ['added', 'added'],
  ['updated', 'updated'],
  ['unchanged', 'unchanged'],
  ['removed', 'removed'],
  ['removalsHeld', 'removals held'],
  ['skipped', 'skipped'],
  ['failed', 'failed'],
  ['embedded', 'chunks embedded'],
];
const SYNC_STATUS_TEXT: Record<SyncRun['status'], string> = { running: 'Running', succeeded: 'Succeeded', held: 'Held', failed: 'Failed' };
const SEARCH_DELAY_MS = 300;
const API = '/api/v1/knowledge';

/** The files the knowledge API takes, by extension, and the content type each is sent as. */
const UPLOAD_TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Wires the page's elements (in review.html); `show` loads it afresh. */
export function knowledgePage(parts: KnowledgePageParts): { show(): void; reset(): void } {
  const searchForm = byId<HTMLFormElement>('article-filters');
  const searchInput = byId<HTMLInputElement>('article-search');
  const listStatus = byId<HTMLElement>('article-status');
  const list = byId<HTMLUListElement>('article-list');
  const moreButton = byId<HTMLButtonElement>('articles-more');
  const heading = byId<HTMLElement>('article-heading');
  const detailStatus = byId<HTMLElement>('article-detail-status');
  const facts = byId<HTMLElement>('article-facts');
  const deleteButton = byId<HTMLButtonElement>('delete-article');
  const chunks = byId<HTMLOListElement>('chunks');
  const uploadForm = byId<HTMLFormElement>('upload-form');
  const fileInput = byId<HTMLInputElement>('upload-file');
  const sourceInput = byId<HTMLInputElement>('upload-source');
  const uploadStatus = byId<HTMLElement>('upload-status');
  const confirmDialog = byId<HTMLDialogElement>('confirm-delete');
  const confirmText = byId<HTMLElement>('confirm-delete-text');
  const insightsStatus = byId<HTMLElement>('insights-status');
  const mostCited = byId<HTMLOListElement>('most-cited');
  const unanswered = byId<HTMLOListElement>('unanswered');
  const gapList = byId<HTMLOListElement>('gaps');
  const draftForm = byId<HTMLFormElement>('draft-form');
  const draftHeading = byId<HTMLElement>('draft-heading');
  const draftTitle = byId<HTMLInputElement>('draft-title');
  const draftBody = byId<HTMLTextAreaElement>('draft-body');
  const draftSource = byId<HTMLInputElement>('draft-source');
  const draftStatus = byId<HTMLElement>('draft-status');
  const syncsStatus = byId<HTMLElement>('syncs-status');
  const syncTable = byId<HTMLTableElement>('sync-runs');
  const syncRows = byId<HTMLTableSectionElement>('sync-runs-body');
  const syncsMore = byId<HTMLButtonElement>('syncs-more');
  let syncCursor: string | null = null;
  let syncRequest = 0;

  let nextAfter: string | null = null;
  let openSource: string | null = null;
  let listRequest = 0;
  let detailRequest = 0;
  const loaded = new Map<string, ArticleSummary>();

  const sourcePath = (source: string) => `${API}/sources/${encodeURIComponent(source)}`;

  /** A request with the agent key; a refused key signs out. */
  async function call<T>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, body?: { type: string; data: Blob }): Promise<T> {
    try {
      if (method === 'GET') return await getJson<T>(url, parts.authorization());
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: { accept: 'application/json', ...parts.authorization(), ...(body && { 'content-type': body.type }) },
          body: body?.data,
        });
      } catch {
        throw new ApiError(0, 'network_error', 'The server could not be reached. Check the connection and try again.');
      }
      if (!response.ok) throw await apiErrorOf(response);
      return (await response.json()) as T;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) parts.onUnauthorized();
      throw error;
    }
  }

  const messageOf = (error: unknown) => (error instanceof ApiError ? error.message : 'Something went wrong. Please try again.');

  // --- the list ---------------------------------------------------------------

  async function loadArticles(reset: boolean): Promise<void> {
    const request = ++listRequest;
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    const text = searchInput.value.trim();
    if (text) params.set('q', text);
    if (!reset && nextAfter) params.set('after', nextAfter);
    listStatus.textContent = 'Loading articles…';
    moreButton.disabled = true;
    try {
      const page = await call<ArticlePage>('GET', `${API}/sources?${params}`);
      if (request !== listRequest) return;
      if (reset) {
        list.replaceChildren();
        loaded.clear();
      }
      for (const article of Array.isArray(page.sources) ? page.sources : []) {
        if (typeof article?.source !== 'string' || loaded.has(article.source)) continue;
        loaded.set(article.source, article);
        list.append(articleItem(article));
      }
      nextAfter = typeof page.next_after === 'string' ? page.next_after : null;
      moreButton.hidden = nextAfter === null;
      const shown = list.childElementCount;
      listStatus.textContent =
        shown > 0 ? `${shown} article${shown === 1 ? '' : 's'} shown${nextAfter ? ', more available' : ''}.`
        : text ? 'No articles match.'
        : 'The knowledge base is empty: upload an article below.';
    } catch (error) {
      if (request === listRequest) listStatus.textContent = `Articles could not be loaded: ${messageOf(error)}`;
    } finally {
      if (request === listRequest) moreButton.disabled = false;
    }
  }

  function articleItem(article: ArticleSummary): HTMLLIElement {
    const button = el(
      'button',
      { type: 'button', class: 'session', 'data-source': article.source },
      el('span', { class: 'session-title' }, article.title || article.source),
      el('span', { class: 'session-last' }, article.source),
      el('span', { class: 'session-meta' }, `${article.chunk_count} chunk${article.chunk_count === 1 ? '' : 's'} · updated `, parts.formatTime(article.updated_at)),
    );
    if (article.source === openSource) button.setAttribute('aria-current', 'true');
    button.addEventListener('click', () => void openArticle(article.source));
    return el('li', {}, button);
  }

  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  searchInput.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void loadArticles(true), SEARCH_DELAY_MS);
  });
  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(searchTimer);
    void loadArticles(true);
  });
  moreButton.addEventListener('click', () => void loadArticles(false));

  // --- one article --------------------------------------------------------------

  function clearDetail(): void {
    openSource = null;
    detailRequest++;
    heading.textContent = 'Select an article';
    detailStatus.textContent = '';
    facts.hidden = true;
    facts.replaceChildren();
    deleteButton.hidden = true;
    chunks.replaceChildren();
  }

  async function openArticle(source: string, moveFocus = true): Promise<void> {
    const request = ++detailRequest;
    openSource = source;
    for (const button of list.querySelectorAll<HTMLButtonElement>('button.session')) {
      if (button.dataset['source'] === source) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
    heading.textContent = loaded.get(source)?.title ?? source;
    detailStatus.textContent = 'Loading the article…';
    facts.hidden = true;
    deleteButton.hidden = true;
    chunks.replaceChildren();
    if (moveFocus) heading.focus();
    try {
      const article = await call<Article>('GET', sourcePath(source));
      if (request !== detailRequest) return;
      heading.textContent = article.title;
      const rows: [string, Node | string][] = [
        ['Source', el('code', {}, article.source)],
        ['Chunks', String(article.chunk_count)],
        ['Characters', article.char_count.toLocaleString()],
        ['Embedding model', article.embedding_model],
        ['Updated', parts.formatTime(article.updated_at)],
        ['Content hash', el('code', {}, article.content_hash.slice(0, 16))],
      ];
      facts.replaceChildren(...rows.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
      facts.hidden = false;
      deleteButton.hidden = false;
      chunks.replaceChildren(
        ...article.chunks.map((c) =>
          el('li', { class: 'chunk' }, el('p', { class: 'chunk-label' }, `Chunk ${c.chunk_index + 1} of ${article.chunks.length}`), el('pre', {}, c.content)),
        ),
      );
      detailStatus.textContent = '';
    } catch (error) {
      if (request !== detailRequest) return;
      detailStatus.textContent = `This article could not be loaded: ${messageOf(error)}`;
    }
  }

  deleteButton.addEventListener('click', () => {
    if (!openSource) return;
    confirmText.textContent = `“${heading.textContent}” (${openSource}) will be removed from the knowledge base. Answers stop citing it at once.`;
    confirmDialog.returnValue = '';
    confirmDialog.showModal();
  });

  confirmDialog.addEventListener('close', async () => {
    const source = openSource;
    if (confirmDialog.returnValue !== 'delete' || !source) {
      deleteButton.focus();
      return;
    }
    detailStatus.textContent = 'Deleting…';
    try {
      await call('DELETE', sourcePath(source));
      const title = heading.textContent;
      clearDetail();
      detailStatus.textContent = `Deleted “${title}”.`;
      heading.focus();
      await Promise.all([loadArticles(true), loadInsights()]);
    } catch (error) {
      detailStatus.textContent = `The article could not be deleted: ${messageOf(error)}`;
      deleteButton.focus();
    }
  });

  // --- uploading ---------------------------------------------------------------

  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (!file || sourceInput.value.trim()) return;
    // A file named like a stored article replaces it; any other is added under knowledge/uploads/.
    const existing = [...loaded.keys()].find((s) => s === file.name || s.endsWith(`/${file.name}`));
    sourceInput.value = existing ?? `knowledge/uploads/${file.name}`;
  });

  uploadForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const file = fileInput.files?.[0];
    const source = sourceInput.value.trim();
    if (!file) {
      uploadStatus.textContent = 'Choose a file first (markdown, text, HTML, PDF or Word .docx).';
      fileInput.focus();
      return;
    }
    if (!source) {
      uploadStatus.textContent = 'Give the article a source name.';
      sourceInput.focus();
      return;
    }
    const submit = uploadForm.querySelector<HTMLButtonElement>('button[type="submit"]')!;
    submit.disabled = true;
    uploadStatus.textContent = `Uploading ${file.name}…`;
    try {
      const type = uploadType(file);
      if (!type) {
        uploadStatus.textContent = `${file.name} is not a file the knowledge base takes: choose markdown, text, HTML, PDF or Word (.docx).`;
        return;
      }
      const result = await call<PutResult>('PUT', sourcePath(source), { type, data: file });
      const verb = { added: 'Added', updated: 'Replaced', unchanged: 'Unchanged:' }[result.outcome];
      uploadStatus.textContent = `${verb} “${result.title}” (${result.chunk_count} chunk${result.chunk_count === 1 ? '' : 's'}).`;
      uploadForm.reset();
      await loadArticles(true);
      await openArticle(result.source, false);
    } catch (error) {
      uploadStatus.textContent = `The file was not uploaded: ${messageOf(error)}`;
    } finally {
      submit.disabled = false;
    }
  });

  /** The content type to send a file as: by its extension (browsers often leave .md untyped), else the browser's type if the API takes it. */
  function uploadType(file: File): string | null {
    const extension = /\.[^.]+$/.exec(file.name)?.[0]?.toLowerCase() ?? '';
    return UPLOAD_TYPES[extension] ?? (Object.values(UPLOAD_TYPES).includes(file.type) ? file.type : null);
  }

  // --- what customers asked -------------------------------------------------------

  async function loadInsights(): Promise<void> {
    insightsStatus.textContent = 'Loading…';
    try {
      const insights = await call<Insights>('GET', `${API}/insights?days=30&limit=10`);
      mostCited.replaceChildren(
        ...insights.most_cited.map((c) =>
          el(
            'li',
            {},
            el('strong', {}, c.title),
            ' ',
            el('code', {}, c.source),
            el('span', { class: 'meta' }, `cited by ${c.answers} answer${c.answers === 1 ? '' : 's'}${c.in_knowledge_base ? '' : ' · deleted since'}`),
          ),
        ),
      );
      unanswered.replaceChildren(
        ...insights.unanswered.map((q) =>
          el(
            'li',
            {},
            el('span', {}, `“${q.question}”`),
            el(
              'span',
              { class: 'meta' },
              `asked ${q.times} time${q.times === 1 ? '' : 's'} · best confidence ${q.best_confidence.toFixed(2)}${q.escalated ? ` · escalated ${q.escalated}×` : ''} · `,
              el('a', { href: `#session=${encodeURIComponent(q.session_id)}` }, 'open the conversation'),
            ),
          ),
        ),
      );
      gapList.replaceChildren(...insights.gaps.map(gapItem));
      const empty = insights.most_cited.length === 0 && insights.unanswered.length === 0 && insights.gaps.length === 0;
      insightsStatus.textContent = empty ? 'No answers in the last 30 days yet.' : '';
    } catch (error) {
      insightsStatus.textContent = `Could not be loaded: ${messageOf(error)}`;
    }
  }

  function gapItem(gap: Gap): HTMLLIElement {
    const reasons = Object.entries(gap.reasons)
      .map(([reason, n]) => `${REASON_TEXT[reason] ?? reason} ${n}×`)
      .join(', ');
    const draftButton = el('button', { type: 'button', class: 'draft-gap' }, 'Draft an article');
    draftButton.addEventListener('click', () => void draftFrom(gap, draftButton));
    return el(
      'li',
      {},
      el('span', {}, `“${gap.question}”`),
      el('span', { class: 'meta' }, `asked ${gap.count} time${gap.count === 1 ? '' : 's'} · ${reasons}`),
      ...(gap.examples.length > 0 ? [el('span', { class: 'meta' }, `also: ${gap.examples.map((e) => `“${e}”`).join(', ')}`)] : []),
      el(
        'span',
        { class: 'meta' },
        ...gap.session_ids.flatMap((id, i) => [i > 0 ? ' · ' : '', el('a', { href: `#session=${encodeURIComponent(id)}` }, `conversation ${i + 1}`)]),
      ),
      draftButton,
    );
  }

  /** Drafts from the first of the gap's conversations a person answered, into the editable form. */
  async function draftFrom(gap: Gap, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    draftStatus.textContent = 'Drafting…';
    try {
      for (const sessionId of gap.session_ids) {
        try {
          const draft = await call<Draft>('POST', `${API}/drafts`, { type: 'application/json', data: new Blob([JSON.stringify({ session_id: sessionId })]) });
          draftTitle.value = draft.title;
          draftBody.value = draft.body;
          draftSource.value = draft.source;
          draftForm.hidden = false;
          draftStatus.textContent = 'Edit the draft, then publish it.';
          draftHeading.focus();
          return;
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 422)) throw error;
        }
      }
      draftStatus.textContent = 'No person has answered this question yet: take over one of its conversations and answer it, then draft again.';
    } catch (error) {
      draftStatus.textContent = `The draft could not be made: ${messageOf(error)}`;
    } finally {
      button.disabled = false;
    }
  }

  draftForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const source = draftSource.value.trim();
    const submit = draftForm.querySelector<HTMLButtonElement>('button[type="submit"]')!;
    submit.disabled = true;
    draftStatus.textContent = 'Publishing…';
    try {
      const article = JSON.stringify({ title: draftTitle.value.trim(), content: draftBody.value });
      const result = await call<PutResult>('PUT', sourcePath(source), { type: 'application/json', data: new Blob([article]) });
      draftForm.hidden = true;
      draftStatus.textContent = `Published “${result.title}” as ${result.source}.`;
      await Promise.all([loadArticles(true), loadInsights()]);
    } catch (error) {
      draftStatus.textContent = `The article was not published: ${messageOf(error)}`;
    } finally {
      submit.disabled = false;
    }
  });

  // --- site syncs -----------------------------------------------------------------

  async function loadSyncs(reset: boolean): Promise<void> {
    const request = ++syncRequest;
    const params = new URLSearchParams({ limit: String(SYNC_PAGE_SIZE) });
    if (!reset && syncCursor) params.set('cursor', syncCursor);
    syncsStatus.textContent = 'Loading…';
    syncsMore.disabled = true;
    try {
      const page = await call<SyncRunPage>('GET', `${API}/syncs?${params}`);
      if (request !== syncRequest) return;
      if (reset) syncRows.replaceChildren();
      syncRows.append(...(Array.isArray(page.syncs) ? page.syncs : []).map(syncRow));
      syncCursor = typeof page.next_cursor === 'string' ? page.next_cursor : null;
      syncsMore.hidden = syncCursor === null;
      syncTable.hidden = syncRows.childElementCount === 0;
      syncsStatus.textContent = syncRows.childElementCount === 0 ? 'No site has been synced yet: set KNOWLEDGE_SYNC_URLS, or run npm run ingest -- <url>.' : '';
    } catch (error) {
      if (request === syncRequest) syncsStatus.textContent = `Could not be loaded: ${messageOf(error)}`;
    } finally {
      if (request === syncRequest) syncsMore.disabled = false;
    }
  }

  function syncRow(run: SyncRun): HTMLTableRowElement {
    const counts = SYNC_COUNTS.filter(([key]) => (run.counts?.[key] ?? 0) > 0).map(([key, label]) => `${run.counts[key]} ${label}`);
    const errors = Array.isArray(run.errors) ? run.errors : [];
    const problems: (Node | string)[] = [];
    if (run.message) problems.push(el('p', {}, run.message));
    if (errors.length > 0) {
      problems.push(
        el(
          'details',
          {},
          el('summary', {}, `${errors.length} page${errors.length === 1 ? '' : 's'} with problems`),
          el('ul', {}, ...errors.map((e) => el('li', {}, el('code', {}, e.url), `: ${e.message}`))),
        ),
      );
    }
    return el(
      'tr',
      { 'data-run': String(run.id), 'data-status': run.status },
      el('td', { class: 'site' }, el('code', {}, run.site), el('span', { class: 'meta' }, run.trigger === 'schedule' ? 'scheduled' : run.trigger)),
      el('td', {}, el('span', { class: `sync-status ${run.status}` }, SYNC_STATUS_TEXT[run.status] ?? run.status)),
      el('td', {}, parts.formatTime(run.started_at)),
      el('td', {}, run.finished_at ? parts.formatTime(run.finished_at) : 'still running'),
      el('td', {}, counts.length > 0 ? counts.join(' · ') : 'nothing'),
      el('td', {}, ...(problems.length > 0 ? problems : ['none'])),
    );
  }

  syncsMore.addEventListener('click', () => void loadSyncs(false));

  return {
    show: () => {
      void loadArticles(true);
      void loadInsights();
      void loadSyncs(true);
    },
    reset: () => {
      syncRequest++;
      syncRows.replaceChildren();
      syncTable.hidden = true;
      listRequest++;
      list.replaceChildren();
      loaded.clear();
      clearDetail();
      uploadStatus.textContent = '';
    },
  };
}
