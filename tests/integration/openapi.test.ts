/**
 * GET /openapi.json: a valid OpenAPI 3.1 document (checked against the official
 * schema by @seriousme/openapi-schema-validator), listing every route the Express app
 * really serves (found by walking its router), and real responses of the running
 * service validate against the response schemas it documents (ajv, JSON Schema 2020-12).
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import { createApp } from '../../src/app';
import { openApiPath } from '../../src/http/openapi/document';
import { signCustomerToken } from '../../src/identity/customer-token';
import { SiteSyncStore } from '../../src/store/site-sync-store';
import { startTestService, TEST_AGENT_KEY, TEST_CUSTOMER_SECRET, type TestService } from '../support/test-service';

let service: TestService;
let doc: any;

beforeAll(async () => {
  // A price for the offline responder, so answers, history items and the history's usage carry the estimated cost.
  service = await startTestService({ env: { MODEL_PRICES: JSON.stringify({ 'offline-extractive': { input: 0.15, cached_input: 0.075, output: 0.6 } }) } });
  const response = await fetch(`${service.baseURL}/openapi.json`);
  expect(response.status).toBe(200);
  doc = await response.json();
});
afterAll(async () => {
  await service?.close();
});

interface ServedRoute {
  method: string;
  path: string;
}

/** Every (method, path) the app's router has a route for, mounted routers included. */
function servedRoutes(app: Express): ServedRoute[] {
  const found: ServedRoute[] = [];
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const methods = Object.keys(layer.route.methods).filter((m) => m !== '_all');
        for (const path of [layer.route.path].flat()) for (const method of methods) found.push({ method, path: prefix + path });
      } else if (Array.isArray(layer.handle?.stack)) {
        // app.use(router) without a path has '/' as its mount point.
        const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack, prefix + mount);
      }
    }
  };
  walk((app as any).router.stack, '');
  return found;
}

test('the document is valid OpenAPI 3.1', async () => {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const validator = new Validator();
  const result = await validator.validate(doc);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

test('every route the app serves is documented, and nothing else is', () => {
  const served = servedRoutes(createApp(service.deps.appParts));
  expect(served.length).toBeGreaterThan(20);
  const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`)));
  const servedKeys = new Set(served.map((r) => `${r.method} ${openApiPath(r.path)}`));
  expect([...servedKeys].filter((k) => !documented.has(k))).toEqual([]);
  expect([...documented].filter((k) => !servedKeys.has(k))).toEqual([]);
  for (const name of ['/api/v1/knowledge/sources/{source}', '/api/v1/chat', '/api/v1/chat/stream', '/metrics', '/health/ready']) {
    expect(doc.paths[name]).toBeDefined();
  }
});

test('request bodies and parameters come from the validating zod schemas, with examples', () => {
  const chat = doc.paths['/api/v1/chat'].post;
  const body = chat.requestBody.content['application/json'];
  expect(body.schema.properties.message).toMatchObject({ type: 'string', minLength: 1, maxLength: service.config.limits.messageMaxChars });
  expect(body.schema.additionalProperties).toBe(false);
  expect(body.example.message).toBeTruthy();
  const put = doc.paths['/api/v1/knowledge/sources/{source}'].put;
  expect(Object.keys(put.requestBody.content).sort()).toEqual([
    'application/json',
    'application/pdf',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'text/html',
    'text/markdown',
    'text/plain',
  ]);
  expect(put.description).toContain(String(service.config.knowledgeDocumentMaxBytes));
  expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '401', '409', '413', '415', '503']));
  const history = doc.paths['/api/v1/chat/history/{session_id}'].get;
  expect(history.parameters.find((p: any) => p.name === 'limit').schema).toMatchObject({ maximum: service.config.limits.historyLimitMax });
});

describe('real responses validate against the document', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);

  /** The documented schema for this operation and status, refs to components resolved. */
  const schemaFor = (method: string, path: string, status: number) => {
    const response = doc.paths[path]?.[method]?.responses?.[String(status)];
    if (!response) throw new Error(`${method} ${path} documents no ${status}`);
    const content = response.content?.['application/json'];
    if (!content) return null;
    const ref = content.schema.$ref as string | undefined;
    return ref ? doc.components.schemas[ref.split('/').at(-1)!] : content.schema;
  };

  const checked = new Set<string>();
  async function check(method: string, path: string, url: string, init: RequestInit, expectedStatus: number) {
    const response = await fetch(`${service.baseURL}${url}`, { method: method.toUpperCase(), ...init });
    expect(response.status).toBe(expectedStatus);
    const documented = doc.paths[path][method].responses[String(expectedStatus)];
    expect(documented).toBeDefined();
    const schema = schemaFor(method, path, expectedStatus);
    if (schema) {
      const body = await response.json();
      const valid = ajv.validate(schema, body);
      if (!valid) throw new Error(`${method} ${url} ${expectedStatus}: ${ajv.errorsText(ajv.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
    } else {
      const contentType = Object.keys(documented.content ?? {})[0];
      if (contentType) expect(response.headers.get('content-type')).toContain(contentType);
      // An event stream may never end (a conversation's events): its headers are the contract.
      if (contentType === 'text/event-stream') await response.body?.cancel();
      else await response.arrayBuffer();
    }
    checked.add(`${method} ${path}`);
  }

  const agent = { authorization: `Bearer ${TEST_AGENT_KEY}` };
  const jsonHeaders = { 'content-type': 'application/json' };

  test('for every documented operation, answers and errors alike', async () => {
    const chat = await fetch(`${service.baseURL}/api/v1/chat`, {
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ message: 'How long does a refund take?', session_id: 'openapi-1' }),
    });
    const answer = (await chat.json()) as any;
    // The priced fields are present, so the checks below validate them, not only their absence.
    expect(typeof answer.cost).toBe('number');
    expect(answer.usage.cached_tokens).toEqual(expect.any(Number));
    const token = { 'x-session-token': answer.session_token };
    const session = encodeURIComponent('openapi-1');
    const refunds = encodeURIComponent('knowledge/help-center/refunds.md');

    await check('post', '/api/v1/chat', '/api/v1/chat', { headers: { ...jsonHeaders, ...token }, body: JSON.stringify({ message: 'And for a gift?', session_id: 'openapi-1' }) }, 200);
    await check('post', '/api/v1/chat', '/api/v1/chat', { headers: jsonHeaders, body: JSON.stringify({ message: '' }) }, 400);
    await check('post', '/api/v1/chat', '/api/v1/chat', {
      headers: { ...jsonHeaders, 'x-customer-token': 'not-a-signed-token' },
      body: JSON.stringify({ message: 'Where is my order?' }),
    }, 401);
    await check('post', '/api/v1/chat/stream', '/api/v1/chat/stream', { headers: jsonHeaders, body: JSON.stringify({ message: 'Do you ship abroad?' }) }, 200);
    await check('post', '/api/v1/chat/stream', '/api/v1/chat/stream', { headers: { 'content-type': 'text/plain' }, body: 'hi' }, 415);
    await check('get', '/api/v1/chat/conversation/{session_id}', `/api/v1/chat/conversation/${session}`, { headers: token }, 200);
    await check('get', '/api/v1/chat/conversation/{session_id}', `/api/v1/chat/conversation/${session}`, {}, 401);
    await check('post', '/api/v1/chat/feedback', '/api/v1/chat/feedback', {
      headers: { ...jsonHeaders, ...token },
      body: JSON.stringify({ session_id: 'openapi-1', message_id: answer.message_id, rating: 'up' }),
    }, 200);
    await check('get', '/api/v1/chat/sessions', '/api/v1/chat/sessions?limit=5', { headers: agent }, 200);
    await check('get', '/api/v1/chat/history/{session_id}', `/api/v1/chat/history/${session}`, { headers: agent }, 200);
    await check('get', '/api/v1/chat/history/{session_id}', '/api/v1/chat/history/nobody', { headers: agent }, 404);
    await check('patch', '/api/v1/conversations/{session_id}/memory', `/api/v1/conversations/${session}/memory`, {
      headers: { ...agent, ...jsonHeaders },
      body: JSON.stringify({ mode: 'summarize', context_limit: 12, keep_last_n_turns: 4 }),
    }, 200);
    await check('get', '/api/v1/conversations/{session_id}/memory', `/api/v1/conversations/${session}/memory`, { headers: agent }, 200);
    await check('delete', '/api/v1/conversations/{session_id}/memory', `/api/v1/conversations/${session}/memory`, { headers: agent }, 204);

    // Human takeover: the customer's event stream, a person takes over, the customer's messages are
    // queued (202), the person replies, the read-back, history and session list show it, then release.
    const held = 'openapi-held';
    const heldAnswer = (await (await fetch(`${service.baseURL}/api/v1/chat`, {
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ message: 'Can I talk to a person?', session_id: held }),
    })).json()) as any;
    const heldToken = { 'x-session-token': heldAnswer.session_token };
    const events = `/api/v1/chat/conversation/${held}/events`;
    await check('get', '/api/v1/chat/conversation/{session_id}/events', `${events}?after_seq=0`, { headers: heldToken }, 200);
    await check('get', '/api/v1/chat/conversation/{session_id}/events', events, { headers: { ...agent, 'last-event-id': '1' } }, 200);
    await check('get', '/api/v1/chat/conversation/{session_id}/events', events, {}, 401);
    await check('get', '/api/v1/chat/conversation/{session_id}/events', `${events}?after_seq=-1`, { headers: heldToken }, 400);
    const takeover = `/api/v1/conversations/${held}/takeover`;
    await check('post', '/api/v1/conversations/{session_id}/takeover', takeover, { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ agent_name: 'Maria' }) }, 200);
    await check('post', '/api/v1/conversations/{session_id}/takeover', takeover, { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ agent_name: 'Ana' }) }, 409);
    await check('post', '/api/v1/conversations/{session_id}/takeover', '/api/v1/conversations/nobody/takeover', {
      headers: { ...agent, ...jsonHeaders },
      body: JSON.stringify({ agent_name: 'Maria' }),
    }, 404);
    await check('post', '/api/v1/chat', '/api/v1/chat', { headers: { ...jsonHeaders, ...heldToken }, body: JSON.stringify({ message: 'Are you there?', session_id: held }) }, 202);
    await check('post', '/api/v1/chat/stream', '/api/v1/chat/stream', { headers: { ...jsonHeaders, ...heldToken }, body: JSON.stringify({ message: 'Hello?', session_id: held }) }, 202);
    const replies = `/api/v1/conversations/${held}/replies`;
    await check('post', '/api/v1/conversations/{session_id}/replies', replies, {
      headers: { ...agent, ...jsonHeaders },
      body: JSON.stringify({ content: 'Yes, Maria here. How can I help?', agent_name: 'Maria' }),
    }, 201);
    await check('post', '/api/v1/conversations/{session_id}/replies', replies, { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ content: '' }) }, 400);
    // A draft: a request for a person is not a question the help center lacked (422); one it lacked, answered by a person (200).
    const drafts = '/api/v1/knowledge/drafts';
    await check('post', drafts, drafts, { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ session_id: held }) }, 422);
    await check('post', drafts, drafts, { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ session_id: 'nobody' }) }, 404);
    await check('post', drafts, drafts, { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ session: held }) }, 400);
    const lacked = 'openapi-lacked';
    await fetch(`${service.baseURL}/api/v1/chat`, { method: 'POST', headers: jsonHeaders, body: JSON.stringify({ message: 'Do you engrave products?', session_id: lacked }) });
    await fetch(`${service.baseURL}/api/v1/conversations/${lacked}/takeover`, { method: 'POST', headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ agent_name: 'Maria' }) });
    await fetch(`${service.baseURL}/api/v1/conversations/${lacked}/replies`, { method: 'POST', headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ content: 'Yes, for 9 euros.' }) });
    await check('post', drafts, drafts, { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ session_id: lacked }) }, 200);
    await check('get', '/api/v1/chat/conversation/{session_id}', `/api/v1/chat/conversation/${held}`, { headers: heldToken }, 200);
    await check('get', '/api/v1/chat/history/{session_id}', `/api/v1/chat/history/${held}`, { headers: agent }, 200);
    await check('get', '/api/v1/chat/sessions', '/api/v1/chat/sessions?handler=human&waiting=false', { headers: agent }, 200);
    await check('get', '/api/v1/chat/sessions', '/api/v1/chat/sessions?handler=robot', { headers: agent }, 400);
    await check('post', '/api/v1/conversations/{session_id}/release', `/api/v1/conversations/${held}/release`, { headers: agent }, 200);
    await check('post', '/api/v1/conversations/{session_id}/release', '/api/v1/conversations/nobody/release', { headers: agent }, 404);
    await check('post', '/api/v1/conversations/{session_id}/replies', replies, { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ content: 'Still here?' }) }, 409);
    await check('get', '/api/v1/knowledge/sources', '/api/v1/knowledge/sources?q=refund', { headers: agent }, 200);
    await check('get', '/api/v1/knowledge/sources', '/api/v1/knowledge/sources', {}, 401);
    await check('get', '/api/v1/knowledge/sources/{source}', `/api/v1/knowledge/sources/${refunds}`, { headers: agent }, 200);
    await check('put', '/api/v1/knowledge/sources/{source}', `/api/v1/knowledge/sources/${encodeURIComponent('kb/openapi.md')}`, {
      headers: { ...agent, 'content-type': 'text/markdown' },
      body: '# OpenAPI\n\nA contract integrators can build on.',
    }, 201);
    await check('put', '/api/v1/knowledge/sources/{source}', `/api/v1/knowledge/sources/${encodeURIComponent('kb/openapi.md')}`, {
      headers: { ...agent, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'OpenAPI', content: '# OpenAPI\n\nA contract integrators can build on.' }),
    }, 200);
    await check('put', '/api/v1/knowledge/sources/{source}', `/api/v1/knowledge/sources/${encodeURIComponent('kb/openapi.md')}`, {
      headers: { ...agent, 'content-type': 'text/markdown' },
      body: '',
    }, 400);
    await check('delete', '/api/v1/knowledge/sources/{source}', `/api/v1/knowledge/sources/${encodeURIComponent('kb/openapi.md')}`, { headers: agent }, 200);
    await check('get', '/api/v1/knowledge/insights', '/api/v1/knowledge/insights?days=7', { headers: agent }, 200);
    // A sync started on request: a started run (the site need not answer: the run is recorded first), a bad body, no key.
    await check('post', '/api/v1/knowledge/syncs', '/api/v1/knowledge/syncs', { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ site: 'http://127.0.0.1:9/sitemap.xml' }) }, 202);
    await check('post', '/api/v1/knowledge/syncs', '/api/v1/knowledge/syncs', { headers: { ...agent, ...jsonHeaders }, body: JSON.stringify({ site: 'ftp://example.com/' }) }, 400);
    await check('post', '/api/v1/knowledge/syncs', '/api/v1/knowledge/syncs', { headers: jsonHeaders, body: JSON.stringify({ site: 'http://127.0.0.1:9/' }) }, 401);
    // Site sync runs: one that failed (with its errors) and one still running, as the run records keep them.
    const syncRuns = new SiteSyncStore(service.db);
    const failedRun = await syncRuns.startRun('https://help.example.com/sitemap.xml', 'schedule');
    await syncRuns.finishRun(failedRun, {
      status: 'failed',
      counts: { fetched: 0, added: 0, updated: 0, unchanged: 0, skipped: 0, failed: 1, removed: 0, removalsHeld: 0, embedded: 0 },
      errors: [{ url: 'https://help.example.com/sitemap.xml', reason: 'unreachable', message: 'The site could not be reached' }],
      message: 'The site could not be reached: nothing was removed',
    });
    await syncRuns.startRun('https://help.example.com/sitemap.xml', 'cli');
    await check('get', '/api/v1/knowledge/syncs', '/api/v1/knowledge/syncs?limit=1', { headers: agent }, 200);
    await check('get', '/api/v1/knowledge/syncs', `/api/v1/knowledge/syncs?cursor=${failedRun + 1}`, { headers: agent }, 200);
    await check('get', '/api/v1/knowledge/syncs', '/api/v1/knowledge/syncs?limit=0', { headers: agent }, 400);
    await check('get', '/api/v1/knowledge/syncs', '/api/v1/knowledge/syncs', {}, 401);
    // The customer-data lifecycle: export, erasure of a conversation and of a customer, the audit.
    const signedIn = { 'x-customer-token': await signCustomerToken(TEST_CUSTOMER_SECRET, 'priya.raman@example.com') };
    const own = (await (await fetch(`${service.baseURL}/api/v1/chat`, {
      method: 'POST',
      headers: { ...jsonHeaders, ...signedIn },
      body: JSON.stringify({ message: 'How long does a refund take?', session_id: 'openapi-erase' }),
    })).json()) as any;
    const erase = '/api/v1/chat/conversation/{session_id}';
    await check('get', '/api/v1/customers/{user_id}/export', '/api/v1/customers/priya.raman%40example.com/export', { headers: agent }, 200);
    await check('get', '/api/v1/customers/{user_id}/export', '/api/v1/customers/priya.raman%40example.com/export', {}, 401);
    await check('get', '/api/v1/me/export', '/api/v1/me/export', { headers: signedIn }, 200);
    await check('get', '/api/v1/me/export', '/api/v1/me/export', {}, 401);
    await check('delete', erase, '/api/v1/chat/conversation/openapi-erase', { headers: { 'x-session-token': 'not-its-token' } }, 403);
    await check('delete', erase, '/api/v1/chat/conversation/openapi-erase', {}, 401);
    await check('delete', erase, '/api/v1/chat/conversation/bad%20id', { headers: agent }, 400);
    await check('delete', erase, '/api/v1/chat/conversation/openapi-erase', { headers: { 'x-session-token': own.session_token } }, 200);
    await check('delete', erase, '/api/v1/chat/conversation/openapi-erase', { headers: agent }, 404);
    await check('delete', '/api/v1/customers/{user_id}', '/api/v1/customers/priya.raman%40example.com', { headers: agent }, 200);
    await check('delete', '/api/v1/customers/{user_id}', '/api/v1/customers/priya.raman%40example.com', {}, 401);
    await check('get', '/api/v1/audit/erasures', '/api/v1/audit/erasures?limit=1', { headers: agent }, 200);
    await check('get', '/api/v1/audit/erasures', '/api/v1/audit/erasures?cursor=x', { headers: agent }, 400);
    // The tool-trial audit, with a trial of each kind of outcome (one erased) so every field has a value.
    await service.db.exec(`
      select record_tool_trial('console', 'getMyOrder', 'ada@books.example', '{"orderId": "BK-1001", "customerId": "ada@books.example"}', array['customerId'], 'ok', null);
      select record_tool_trial('cli', 'cancelOrder', null, '{}', '{}', 'refused', 'not_signed_in');
      select record_tool_trial('console', 'getMyOrder', 'grace@books.example', '{"orderId": "BK-1002"}', array['customerId'], 'error', 'http_404');
      update tool_trials set customer_id = null, customer_pseudonym = 'c_0123456789abcdef0123456789abcdef', arguments = null where customer_id = 'grace@books.example';`);
    await check('get', '/api/v1/audit/tool-trials', '/api/v1/audit/tool-trials?limit=5', { headers: agent }, 200);
    await check('get', '/api/v1/audit/tool-trials', '/api/v1/audit/tool-trials?limit=x', { headers: agent }, 400);
    await check('get', '/api/v1/audit/tool-trials', '/api/v1/audit/tool-trials', {}, 401);
    // The sample shop has no actions: the tools page lists none, and a trial finds no such tool.
    await check('get', '/api/v1/shop/tools', '/api/v1/shop/tools', { headers: agent }, 200);
    await check('get', '/api/v1/shop/tools', '/api/v1/shop/tools', {}, 401);
    await check('post', '/api/v1/shop/tools/{name}/try', '/api/v1/shop/tools/getOrder/try', { headers: { ...agent, ...jsonHeaders }, body: '{}' }, 404);
    await check('post', '/api/v1/shop/tools/{name}/try', '/api/v1/shop/tools/getOrder/try', { headers: { ...agent, ...jsonHeaders }, body: '{"customer":"x"}' }, 400);
    await check('get', '/health/live', '/health/live', {}, 200);
    await check('get', '/health', '/health', {}, 200);
    await check('get', '/health/ready', '/health/ready', {}, 200);
    await check('get', '/metrics', '/metrics', {}, 200);
    await check('get', '/openapi.json', '/openapi.json', {}, 200);
    for (const page of ['/', '/review', '/widget.js', '/review.js', '/review.css', '/shop.css']) await check('get', page, page, {}, 200);
    // The demo shop's signed-in page is served (and documented) only with the generated demo secret.
    if (doc.paths['/demo/signed-in']) await check('get', '/demo/signed-in', '/demo/signed-in', {}, 200);

    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
    expect(operations.filter((op) => !checked.has(op))).toEqual([]);
  });
});
