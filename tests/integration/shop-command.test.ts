/**
 * `npm run shop -- check` and `npm run shop -- try` (scripts/shop.ts) as an operator
 * runs them: real processes, against the shop's orders API (which refuses any key but
 * its own), an MCP server and a help-center site on loopback. Each wrong thing alone
 * (a base_url nothing answers on, a wrong API key, an operation the document lacks,
 * an MCP server that is down, a dead or unreachable sitemap) makes `check` exit 1
 * with one line that names it. Every `try` is recorded in the database (the
 * tool-trial audit, source `cli`).
 */
import { execFile } from 'node:child_process';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import { openPgliteDatabase } from '../../src/store/pglite';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startMcpHttpServer, type McpHttpTestServer } from '../support/mcp-http-server';
import { sitemapXml, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { freePort, tsxNodeArgs } from '../support/processes';
import { makeTempDir, REPO_ROOT } from '../support/test-service';

// Each command is a fresh process under tsx: slow on a busy machine.
jest.setTimeout(300_000);

const ADA = 'ada@books.example';
const API_TOKEN = 'bramble-orders-token-from-the-environment';

let api: OrdersApi;
let mcp: McpHttpTestServer;
let helpSite: LoopbackSite;
let dir: string;
/** The shop's own sign-in sentence, in its first language (German). */
const SIGN_IN_DE = 'Bitte melden Sie sich in Ihrem Kundenkonto an und öffnen Sie den Chat dort.';

/** The shop file, with `changes` applied to its text. */
function shopFile(changes: (text: string) => string = (t) => t): string {
  return changes(`name: Bramble Books
languages: [de, en]
agents:
  - key: books
    description: Bramble Books' support.
    instructions: You are the support assistant of Bramble Books.
    tools: [getMyOrder, cancelOrder, paymentMethod, shippingQuote, search_knowledge_base]
actions:
  - openapi: ./orders-api.yaml
    operations: [getMyOrder, cancelOrder, paymentMethod]
    allow_writes: [cancelOrder]
    allow_private_network: true
    headers: { Authorization: "Bearer \${BRAMBLE_API_TOKEN}" }
    bind: { customerId: customer.id }
mcp_servers:
  - name: shipping
    url: ${mcp.url}
    tools: [shippingQuote]
    allow_private_network: true
order_numbers: { prefix: BK, digits: 4 }
knowledge:
  sites:
    - { url: ${helpSite.origin}/sitemap.xml, allow_private_network: true }
words:
  sign_in: ${SIGN_IN_DE}
`);
}

let dataDirs = 0;

/**
 * Runs `npm run shop -- <args>` as its script, in the shop's folder (no .env), with the API token in the environment,
 * on an embedded database of its own (DATA_DIR: `dataDir`, or a new folder), which `try` records the trial in.
 */
function shop(args: string[], dataDir = path.join(dir, `data-${++dataDirs}`)): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...tsxNodeArgs(path.join(REPO_ROOT, 'scripts/shop.ts')), ...args],
      { cwd: dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, BRAMBLE_API_TOKEN: API_TOKEN, DATA_DIR: dataDir }, timeout: 240_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as NodeJS.ErrnoException).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  [api, mcp, helpSite] = await Promise.all([startOrdersApi({ token: API_TOKEN }), startMcpHttpServer(), startLoopbackSite()]);
  helpSite.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapXml([{ loc: `${helpSite.origin}/help/returns` }]) });
  dir = await makeTempDir('shop-command-');
  await api.writeOpenApi(dir);
  await fs.writeFile(path.join(dir, 'shop.yaml'), shopFile());
});
afterAll(async () => {
  await Promise.all([api?.close(), mcp?.close(), helpSite?.close()]);
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  api.requests.length = 0;
  mcp.calls.length = 0;
});

test("check lists each tool with its arguments, its bindings and whether it writes, calls the API once with the file's key, fetches the sitemap, and exits 0", async () => {
  const { code, stdout } = await shop(['check', '--file', 'shop.yaml']);
  expect(stdout).toContain('No problems found.');
  expect(stdout).toMatch(/^Escalation threshold: 0\.\d+, the embedder's default/m);
  expect(code).toBe(0);
  const host = new URL(api.baseURL).host;
  expect(stdout).toContain(`getMyOrder  action GET on ${host}, read-only`);
  expect(stdout).toContain('    arguments: orderId: string');
  expect(stdout).toContain('    bound: customerId <- customer.id');
  expect(stdout).toContain(`cancelOrder  action POST on ${host}, writes`);
  expect(stdout).toMatch(/paymentMethod {2}action GET on [^\n]+\n {4}arguments: \(none\)\n {4}bound: \(none\)/);
  expect(stdout).toContain('shippingQuote  MCP server shipping, may write (MCP tools do not say)');
  expect(stdout).toContain('MCP server shipping: connected, offers shippingQuote');
  // A read-only operation that needs no customer, with the real credentials.
  expect(stdout).toContain(`Checked action API (actions[0]): GET ${api.baseURL}/payment (paymentMethod): HTTP 200`);
  expect(stdout).toContain(`Checked knowledge site (knowledge.sites[0]): GET ${helpSite.origin}/sitemap.xml: HTTP 200, a sitemap`);
  expect(stdout).toContain("a verified customer's order number (like BK-1444) calls getMyOrder(orderId)");
  expect(stdout).not.toContain(API_TOKEN);
  // One call of the API, read-only, with the file's key; nothing else of it called.
  expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /payment']);
  expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${API_TOKEN}`);
  expect(helpSite.requests.map((r) => r.path)).toEqual(['/sitemap.xml']);
});

test('check exits 1 with one line each on a wrong base_url, a wrong key, a missing operation, an unreachable MCP server, a dead sitemap and a site down', async () => {
  const [nobodyApi, nobodyMcp, nobodySite] = [await freePort(), await freePort(), await freePort()];
  const variants = {
    'wrong-base.yaml': shopFile((t) => t.replace('    allow_writes:', `    base_url: http://127.0.0.1:${nobodyApi}\n    allow_writes:`)),
    'wrong-key.yaml': shopFile((t) => t.replace('Bearer \${BRAMBLE_API_TOKEN}', 'Bearer a-key-the-shop-revoked')),
    'missing-operation.yaml': shopFile((t) => t.replace('operations: [getMyOrder, cancelOrder, paymentMethod]', 'operations: [getMyOrder, cancelOrder, paymentMethod, getInvoice]')),
    'mcp-down.yaml': shopFile((t) => t.replace(mcp.url, `http://127.0.0.1:${nobodyMcp}/mcp`)),
    'dead-sitemap.yaml': shopFile((t) => t.replace(`${helpSite.origin}/sitemap.xml`, `${helpSite.origin}/old-sitemap.xml`)),
    'site-down.yaml': shopFile((t) => t.replace(`${helpSite.origin}/sitemap.xml`, `http://127.0.0.1:${nobodySite}/sitemap.xml`)),
  };
  for (const [name, text] of Object.entries(variants)) await fs.writeFile(path.join(dir, name), text);
  const [wrongBase, wrongKey, missingOperation, mcpDown, deadSitemap, siteDown] = await Promise.all(Object.keys(variants).map((name) => shop(['check', '--file', name])));
  const problems = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('problem: '));

  expect(wrongBase.code).toBe(1);
  expect(problems(wrongBase.stdout)).toEqual([
    expect.stringMatching(new RegExp(`wrong-base\\.yaml: actions\\[0\\]: GET http://127\\.0\\.0\\.1:${nobodyApi}/payment \\(paymentMethod\\) cannot be reached`)),
  ]);

  // The key is refused: a problem, not "reached".
  expect(wrongKey.code).toBe(1);
  expect(problems(wrongKey.stdout)).toEqual([
    expect.stringMatching(/wrong-key\.yaml: actions\[0\]: GET \S+\/payment \(paymentMethod\) answered HTTP 401: the API refused the credentials the file sends \(actions\[0\]\.headers\); check the key$/),
  ]);
  expect(wrongKey.stdout).not.toContain('a-key-the-shop-revoked');

  expect(deadSitemap.code).toBe(1);
  expect(problems(deadSitemap.stdout)).toEqual([
    `problem: ${path.join(dir, 'dead-sitemap.yaml')}: knowledge.sites[0]: ${helpSite.origin}/old-sitemap.xml answers HTTP 404; expected its sitemap or start page`,
  ]);
  expect(siteDown.code).toBe(1);
  expect(problems(siteDown.stdout)).toEqual([
    expect.stringMatching(new RegExp(`site-down\\.yaml: knowledge\\.sites\\[0\\]: http://127\\.0\\.0\\.1:${nobodySite}/sitemap\\.xml cannot be fetched: .+`)),
  ]);

  expect(missingOperation.code).toBe(1);
  expect(problems(missingOperation.stdout)).toEqual([
    expect.stringMatching(/missing-operation\.yaml: actions\[0\]\.operations\[3\]: no operation with operationId "getInvoice"/),
  ]);

  expect(mcpDown.code).toBe(1);
  expect(problems(mcpDown.stdout)).toEqual([expect.stringMatching(/mcp-down\.yaml: mcp_servers\[0\]: MCP server shipping cannot be reached/)]);
});

test('check exits 1 on a shop file with a mistake in it, one line per problem', async () => {
  await fs.writeFile(path.join(dir, 'typo.yaml'), shopFile((t) => t.replace('tools: [getMyOrder,', 'tools: [getMyOrders,')));
  const { code, stdout } = await shop(['check', '--file', 'typo.yaml']);
  expect(code).toBe(1);
  expect(stdout).toMatch(/problem: \S*typo\.yaml: agents\[0\]\.tools\[0\]: no tool is named "getMyOrders"/);
});

test("try calls the tool as that verified customer: the bound id, the file's header (its value hidden), and what the model would receive", async () => {
  const { code, stdout } = await shop(['try', 'getMyOrder', '--customer', ADA, '--file', 'shop.yaml', 'orderId=BK-1001']);
  expect(code).toBe(0);
  expect(stdout).toContain(`as the verified customer ${ADA}`);
  expect(stdout).toContain(`Sent: GET ${api.baseURL}/customers/${encodeURIComponent(ADA)}/orders/BK-1001`);
  expect(stdout).toContain(`  Authorization: (hidden, ${`Bearer ${API_TOKEN}`.length} characters)`);
  expect(stdout).not.toContain(API_TOKEN);
  expect(stdout).toContain('The model would receive:\n  {"orderId":"BK-1001","customerId":"ada@books.example","status":"shipped","total":"42.00"}');
  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]).toMatchObject({ method: 'GET', path: `/customers/${encodeURIComponent(ADA)}/orders/BK-1001` });
  expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${API_TOKEN}`);
});

test('try shows the redaction and the sign-in refusal as a conversation gets them, and an MCP tool call as sent', async () => {
  const [card, anonymous, quote] = await Promise.all([
    shop(['try', 'paymentMethod', '--customer', ADA, '--file', 'shop.yaml']),
    shop(['try', 'getMyOrder', '--file', 'shop.yaml', 'orderId=BK-1001']),
    shop(['try', 'shippingQuote', '--customer', ADA, '--file', 'shop.yaml', 'postcode=D02 X285']),
  ]);
  expect(card.code).toBe(0);
  expect(card.stdout).toContain('Sent: GET');
  expect(card.stdout).not.toContain('4242 4242 4242 4242');
  expect(card.stdout).toContain('"holder":"Ada"');

  expect(anonymous.code).toBe(0);
  expect(anonymous.stdout).toContain('as an anonymous visitor');
  expect(anonymous.stdout).toContain('Sent: nothing over the network');
  expect(anonymous.stdout).toContain('This conversation is not signed in to a customer account, so getMyOrder was not called');
  // The shop's own sign-in sentence, in its first language, as a German conversation gets it.
  expect(anonymous.stdout).toContain(`Tell the customer, in these words: "${SIGN_IN_DE}"`);

  expect(quote.code).toBe(0);
  expect(quote.stdout).toMatch(new RegExp(`Sent: POST ${mcp.url.replace(/[.]/g, '\\.')}\\n(?:  .+\\n)*  body: .*"tools/call".*"postcode":"D02 X285"`));
  expect(quote.stdout).toContain('{"postcode":"D02 X285","price":"4.90","days":2}');
  expect(mcp.calls).toEqual([{ name: 'shippingQuote', args: { postcode: 'D02 X285' } }]);
  // Only the card's request reached the API: the anonymous trial was refused before it.
  expect(api.requests.map((r) => r.path)).toEqual(['/payment']);
});

test('try names the tools there are when the name is wrong, and refuses arguments the tool does not take', async () => {
  const [unknown, wrongArgs] = await Promise.all([
    shop(['try', 'getOrders', '--file', 'shop.yaml']),
    shop(['try', 'getMyOrder', '--customer', ADA, '--file', 'shop.yaml', 'orderId=BK-1']),
  ]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('No tool of the shop\'s systems is named "getOrders". The tools offered now: getMyOrder, cancelOrder, paymentMethod, shippingQuote');
  expect(wrongArgs.code).toBe(1);
  // The argument, what it expects and the value given.
  expect(wrongArgs.stderr).toContain('getMyOrder does not take these arguments: orderId: expected a string matching ^BK-\\d{4}$, got "BK-1"');
  expect(api.requests).toHaveLength(0);
});

test('try records the trial in the database, as sent, with the bound argument named and the source cli; it tries nothing when it cannot record', async () => {
  const dataDir = path.join(dir, 'data-recorded');
  const { code, stdout } = await shop(['try', 'getMyOrder', '--customer', ADA, '--file', 'shop.yaml', 'orderId=BK-1001'], dataDir);
  expect(code).toBe(0);
  expect(stdout).toContain('Recorded in the tool-trial audit');
  expect(api.requests).toHaveLength(1);

  const db = await openPgliteDatabase(path.join(dataDir, 'pglite'));
  try {
    const trials = await new CustomerDataStore(db).toolTrialPage(null, 10);
    expect(trials).toEqual([
      expect.objectContaining({ source: 'cli', tool: 'getMyOrder', customerId: ADA, arguments: { orderId: 'BK-1001', customerId: ADA }, bound: ['customerId'], outcome: 'ok', errorCode: null }),
    ]);
    // The database held by another process (a running service on the embedded default): nothing is tried.
    const held = await shop(['try', 'getMyOrder', '--customer', ADA, '--file', 'shop.yaml', 'orderId=BK-1001'], dataDir);
    expect(held.code).toBe(1);
    expect(held.stderr).toContain('is in use by the running service, and every trial is recorded there');
    expect(api.requests).toHaveLength(1);
  } finally {
    await db.close();
  }
});
