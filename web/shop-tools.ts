/**
 * The review console's "Tools" page: the tools of the shop's own systems (its API's
 * actions, its MCP servers' tools) with their arguments, which are bound to the
 * verified customer, whether they write and which agents name them; and a form that
 * tries a read-only one as a customer, showing what was sent (header values hidden)
 * and what the model would receive. Server text is inserted as text, never as HTML.
 */
import { ApiError, apiErrorOf, getJson } from './api';
import { el } from './dom';
import type { ToolDescription } from '../src/shop/tool-descriptions';

/** A tool as GET /api/v1/shop/tools lists it: its description, and what the console may do with it. */
interface ShopTool extends ToolDescription {
  can_try: boolean;
  agents: string[];
}

interface ToolTrial {
  tool: string;
  customer: string | null;
  sent: { method: string; url: string; headers: Record<string, string>; body: string | null }[];
  received: string;
}

export interface ToolsPageParts {
  /** The agent key as request headers. */
  authorization(): Record<string, string>;
  /** A refused key: the console signs the agent out. */
  onUnauthorized(): void;
}

const API = '/api/v1/shop/tools';
const WRITES_TEXT: Record<ShopTool['writes'], string> = { no: 'read-only', yes: 'writes', unknown: 'may write (MCP tools do not say)' };

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Wires the page's elements (in review.html); `show` loads it afresh. */
export function toolsPage(parts: ToolsPageParts): { show(): void; reset(): void } {
  const listStatus = byId<HTMLElement>('tools-status');
  const list = byId<HTMLUListElement>('tool-list');
  const heading = byId<HTMLElement>('tool-heading');
  const details = byId<HTMLElement>('tool-details');
  const form = byId<HTMLFormElement>('tool-try');
  const customerInput = byId<HTMLInputElement>('tool-customer');
  const emailInput = byId<HTMLInputElement>('tool-email');
  const argumentFields = byId<HTMLElement>('tool-arguments');
  const tryStatus = byId<HTMLElement>('tool-try-status');
  const result = byId<HTMLElement>('tool-result');
  let tools: ShopTool[] = [];
  let open: ShopTool | null = null;
  let request = 0;

  function failed(error: unknown, status: HTMLElement): void {
    if (error instanceof ApiError && error.status === 401) parts.onUnauthorized();
    status.textContent = error instanceof ApiError ? error.message : 'Something went wrong. Please try again.';
  }

  async function load(): Promise<void> {
    const mine = ++request;
    listStatus.textContent = 'Loading…';
    try {
      const page = await getJson<{ tools: ShopTool[] }>(API, parts.authorization());
      if (mine !== request) return;
      tools = page.tools;
      listStatus.textContent = tools.length === 0 ? "The shop file names no actions or MCP tools (or its MCP servers are not connected yet)." : '';
      list.replaceChildren(...tools.map(toolItem));
      if (open) select(tools.find((t) => t.name === open!.name) ?? null);
    } catch (error) {
      if (mine === request) failed(error, listStatus);
    }
  }

  function toolItem(tool: ShopTool): HTMLLIElement {
    const button = el(
      'button',
      { type: 'button', class: 'session', 'aria-current': open?.name === tool.name ? 'true' : undefined },
      el('strong', {}, tool.name),
      el('span', { class: 'session-meta' }, `${tool.kind === 'action' ? `${tool.method} on ${tool.source}` : `MCP server ${tool.source}`} · ${WRITES_TEXT[tool.writes]}`),
    );
    button.addEventListener('click', () => select(tool));
    return el('li', {}, button);
  }

  function select(tool: ShopTool | null): void {
    open = tool;
    for (const button of list.querySelectorAll('button')) {
      if (button.querySelector('strong')?.textContent === tool?.name) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
    result.replaceChildren();
    tryStatus.textContent = '';
    if (!tool) {
      heading.textContent = 'Select a tool';
      details.replaceChildren();
      form.hidden = true;
      return;
    }
    heading.textContent = tool.name;
    details.replaceChildren(
      el('p', {}, tool.description),
      el(
        'dl',
        { class: 'facts' },
        el('dt', {}, 'Calls'),
        el('dd', {}, tool.kind === 'action' ? `${tool.method} on ${tool.source}` : `MCP server ${tool.source}`),
        el('dt', {}, 'Writes'),
        el('dd', {}, WRITES_TEXT[tool.writes]),
        el('dt', {}, 'Arguments'),
        el('dd', {}, tool.arguments.map((a) => `${a.name}${a.required ? '' : ' (optional)'}: ${a.type}`).join(', ') || 'none'),
        el('dt', {}, 'Bound to the customer'),
        el('dd', {}, tool.bound.map((b) => `${b.name} ← ${b.from}`).join(', ') || 'nothing: anyone may call it'),
        el('dt', {}, 'Agents'),
        el('dd', {}, tool.agents.join(', ') || 'none names it'),
      ),
    );
    if (!tool.can_try) details.append(el('p', { class: 'hint' }, 'This tool may write, so it is not tried from here: an operator can try it with npm run shop -- try.'));
    form.hidden = !tool.can_try;
    argumentFields.replaceChildren(
      ...tool.arguments.flatMap((a) => {
        const id = `tool-argument-${a.name}`;
        return [el('label', { for: id }, `${a.name}${a.required ? '' : ' (optional)'}`), el('input', { id, name: a.name, type: 'text', maxlength: '2000', required: a.required, 'data-type': a.type })];
      }),
    );
  }

  /** A field's text as the argument: text for a string, else JSON when it parses. */
  function argumentValue(input: HTMLInputElement): unknown {
    if (input.dataset.type === 'string') return input.value;
    try {
      return JSON.parse(input.value);
    } catch {
      return input.value;
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!open) return;
    const tool = open;
    const args: Record<string, unknown> = {};
    for (const input of argumentFields.querySelectorAll('input')) if (input.value !== '') args[input.name] = argumentValue(input);
    const body = {
      ...(customerInput.value.trim() && { customer_id: customerInput.value.trim() }),
      ...(emailInput.value.trim() && { customer_email: emailInput.value.trim() }),
      arguments: args,
    };
    tryStatus.textContent = `Calling ${tool.name}…`;
    result.replaceChildren();
    try {
      let response: Response;
      try {
        response = await fetch(`${API}/${encodeURIComponent(tool.name)}/try`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...parts.authorization() },
          body: JSON.stringify(body),
        });
      } catch {
        throw new ApiError(0, 'network_error', 'The server could not be reached. Check the connection and try again.');
      }
      if (!response.ok) throw await apiErrorOf(response);
      const trial = (await response.json()) as ToolTrial;
      if (open !== tool) return;
      tryStatus.textContent = trial.customer ? `Called as the verified customer ${trial.customer}.` : 'Called as an anonymous visitor (no customer id).';
      result.replaceChildren(
        el('h3', {}, 'Sent'),
        trial.sent.length === 0
          ? el('p', {}, 'Nothing was sent over the network.')
          : el(
              'ol',
              { class: 'sent-requests' },
              ...trial.sent.map((r) =>
                el('li', {}, el('code', {}, `${r.method} ${r.url}`), el('pre', {}, [...Object.entries(r.headers).map(([n, v]) => `${n}: ${v}`), ...(r.body !== null ? ['', r.body] : [])].join('\n'))),
              ),
            ),
        el('h3', {}, 'What the model would receive'),
        el('pre', { class: 'tool-received' }, trial.received),
      );
    } catch (error) {
      failed(error, tryStatus);
    }
  });

  return {
    show: () => void load(),
    reset: () => {
      request++;
      tools = [];
      list.replaceChildren();
      select(null);
      customerInput.value = '';
      emailInput.value = '';
    },
  };
}
