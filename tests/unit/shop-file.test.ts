/**
 * The shop file: what an operator writes (YAML or JSON), checked at start. Every
 * mistake is reported with the file, the field's path and what was expected;
 * an agent may name built-in tools, actions' operations and MCP servers' tools.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TOOL_NAMES } from '../../src/agent/tools';
import { formatPath, loadShop, ShopFileRejectedError, type Shop } from '../../src/shop/load-shop';
import { loadSampleShop } from '../../src/shop/sample-shop';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'shop-file-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

let fileCounter = 0;
async function writeShop(text: string, extension = 'yaml'): Promise<string> {
  const file = path.join(dir, `shop-${++fileCounter}.${extension}`);
  await fs.writeFile(file, text);
  return file;
}

function load(file: string, env: Record<string, string> = {}): Shop {
  return loadShop({ file, sample: false, env, builtInTools: TOOL_NAMES });
}

/** The lines the start prints for a rejected shop file. */
function problemLines(file: string, env: Record<string, string> = {}): string[] {
  try {
    load(file, env);
  } catch (error) {
    if (error instanceof ShopFileRejectedError) return error.message.split('\n');
    throw error;
  }
  throw new Error('the shop file was accepted');
}

const MINIMAL = `
name: Pine & Pebble
agents:
  - key: help
    description: Answers questions.
    instructions: You help the customers of Pine & Pebble.
    tools: [search_knowledge_base]
`;

describe('the sample shop file', () => {
  const sample = loadSampleShop();

  it('is the sample shop, with its two agents, the support agent first (the default)', () => {
    expect(sample.sample).toBe(true);
    expect(sample.name).toBe('Northwind Home');
    expect(sample.agents.map((a) => a.key)).toEqual(['support', 'orders']);
    expect(sample.agents[0]!.instructions).toMatch(/^You are the customer-support assistant of Northwind Home, an online shop for home appliances\.\n/);
    expect(sample.agents[1]!.memoryStrategy).toEqual({ mode: 'compact', compact_keep: 2, compact_trigger_turns: 3 });
    expect(sample.orderNumbers).toEqual({ prefix: 'ZX', digits: 5 });
  });

  it("keeps today's wording of what customers read around the answers", () => {
    expect(sample.words.human_offer).toBe(
      'I am not confident I have the right answer, so I have flagged this conversation for our support team: a human agent can take over if you would like.',
    );
    expect(sample.words.widget).toEqual({
      title: 'Northwind Home support',
      subtitle: 'Answers from our help center, any time',
      welcome: 'Hi! I am the {title} assistant. Ask me about orders, delivery, returns or payments.',
      outside_hours: 'Our support team is offline right now. They answer {hours}; your conversation is flagged for them and their reply will appear here.',
    });
  });
});

describe('a shop file of its own', () => {
  it('is read from YAML with neutral words and no hours when it sets none', async () => {
    const shop = load(await writeShop(MINIMAL));
    expect(shop).toMatchObject({ sample: false, name: 'Pine & Pebble', actions: [], mcpServers: [], supportHours: null, orderNumbers: null });
    expect(shop.agents).toEqual([{ key: 'help', description: 'Answers questions.', instructions: 'You help the customers of Pine & Pebble.', tools: ['search_knowledge_base'] }]);
    expect(shop.words).toEqual({ by_language: {} });
  });

  it('is read from JSON as well, with knowledge folders relative to the file', async () => {
    const file = await writeShop(
      JSON.stringify({
        name: 'Pine & Pebble',
        agents: [{ key: 'help', description: 'd', instructions: 'i', tools: [] }],
        knowledge: { folders: ['./articles'], sites: ['https://help.pine.example/sitemap.xml'] },
      }),
      'json',
    );
    expect(load(file).knowledge).toEqual({ folders: [path.join(dir, 'articles')], sites: [{ url: 'https://help.pine.example/sitemap.xml', allowPrivateNetwork: false }] });
  });

  it('crawls a site on the private network only where its entry says so', async () => {
    const file = await writeShop(
      JSON.stringify({
        name: 'Pine & Pebble',
        agents: [{ key: 'help', description: 'd', instructions: 'i', tools: [] }],
        knowledge: { sites: ['https://help.pine.example/sitemap.xml', { url: 'http://wiki.internal/help/', allow_private_network: true }, { url: 'http://other.internal/' }] },
      }),
      'json',
    );
    expect(load(file).knowledge.sites).toEqual([
      { url: 'https://help.pine.example/sitemap.xml', allowPrivateNetwork: false },
      { url: 'http://wiki.internal/help/', allowPrivateNetwork: true },
      { url: 'http://other.internal/', allowPrivateNetwork: false },
    ]);
  });

  it("lets agents name actions' operations and MCP servers' tools, without connecting to anything", async () => {
    const file = await writeShop(`${MINIMAL}
  - key: orders
    description: Orders.
    instructions: Look orders up.
    tools: [getOrder, track_parcel, search_knowledge_base]
actions:
  - openapi: ./orders-api.yaml
    operations: [getOrder, listMyOrders]
mcp_servers:
  - name: parcels
    url: https://mcp.parcels.example/mcp
    tools: [track_parcel]
`);
    const shop = load(file);
    expect(shop.agents[1]!.tools).toEqual(['getOrder', 'track_parcel', 'search_knowledge_base']);
    expect(shop.actions[0]).toMatchObject({ openapi: './orders-api.yaml', operations: ['getOrder', 'listMyOrders'], timeout_ms: 8000, max_result_tokens: 1500 });
  });

  it('accepts ${VAR} in headers when the environment has it, and leaves the replacing to the connectors', async () => {
    const file = await writeShop(`${MINIMAL}
actions:
  - openapi: ./orders-api.yaml
    operations: [getOrder]
    headers: { Authorization: "Bearer \${PINE_API_TOKEN}", X-Shop: pine }
`);
    expect(load(file, { PINE_API_TOKEN: 's3cret' }).actions[0]!.headers).toEqual({ Authorization: 'Bearer ${PINE_API_TOKEN}', 'X-Shop': 'pine' });
  });

  it('reads support hours per weekday, ranges across midnight and closed dates', async () => {
    const file = await writeShop(`${MINIMAL}
support_hours:
  time_zone: Europe/Lisbon
  weekly:
    mon-fri: 09:00-17:00
    sat: [10:00-14:00, 22:00-02:00]
  closed: [2026-12-25]
`);
    expect(load(file).supportHours).toEqual({
      timeZone: 'Europe/Lisbon',
      entries: [
        { days: 'mon-fri', hours: '09:00-17:00' },
        { days: 'sat', hours: '10:00-14:00' },
        { days: 'sat', hours: '22:00-02:00' },
      ],
      closedDates: ['2026-12-25'],
    });
  });
});

describe('a shop file with mistakes', () => {
  it('names the file, the field and that it is unknown, for every unknown field', async () => {
    const file = await writeShop(`${MINIMAL}    colour: green
theme: dark
`);
    const lines = problemLines(file);
    expect(lines).toHaveLength(2);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${escape(file)}: agents\\[0\\]\\.colour: is not a field`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${escape(file)}: theme: is not a field`)));
  });

  it("names a widget label that does not exist, in any language's set, and an empty one", async () => {
    const file = await writeShop(`${MINIMAL}words:
  widget:
    labels: { send: Send it, sned: Send }
  de:
    widget:
      labels: { send: "", abschicken: Senden }
`);
    const lines = problemLines(file);
    expect(lines).toHaveLength(3);
    expect(lines).toContainEqual(expect.stringMatching(/words\.widget\.labels\.sned: is not a field/));
    expect(lines).toContainEqual(expect.stringMatching(/words\.de\.widget\.labels\.abschicken: is not a field/));
    expect(lines).toContainEqual(expect.stringMatching(/words\.de\.widget\.labels\.send: must not be empty/));
  });

  it('stops on an agent naming a tool nothing provides, saying which tools exist', async () => {
    const file = await writeShop(`${MINIMAL}
  - key: orders
    description: Orders.
    instructions: Look orders up.
    tools: [lookup_order, search_knowledge_base, getOrdr]
actions:
  - openapi: ./orders-api.yaml
    operations: [getOrder]
`);
    const lines = problemLines(file);
    expect(lines).toEqual([
      `${file}: agents[1].tools[2]: no tool is named "getOrdr"; the tools are (built-in: lookup_order, get_user_profile, search_knowledge_base; actions: getOrder)`,
    ]);
  });

  it('names the header whose ${VAR} is not set', async () => {
    const file = await writeShop(`${MINIMAL}
actions:
  - openapi: ./orders-api.yaml
    operations: [getOrder]
    headers: { Authorization: "Bearer \${PINE_API_TOKEN}" }
`);
    expect(problemLines(file, {})).toEqual([
      `${file}: actions[0].headers.Authorization: \${PINE_API_TOKEN} is not set in the environment`,
    ]);
  });

  it('refuses the service’s own secrets in ${VAR}, set or not, in action headers and an MCP server’s headers and env (issue 34, item 12)', async () => {
    const file = await writeShop(`${MINIMAL}
actions:
  - openapi: ./orders-api.yaml
    operations: [getOrder]
    headers: { Authorization: "Bearer \${AGENT_API_KEY}", X-Db: "\${DATABASE_URL}" }
mcp_servers:
  - name: notes
    url: https://mcp.pine.example/mcp
    tools: [note]
    headers: { X-Key: "\${OPENAI_API_KEY}" }
  - name: local
    command: node
    tools: [local]
    env: { A: "\${CUSTOMER_IDENTITY_SECRET}", B: "\${METRICS_TOKEN}", C: "\${SUPABASE_SERVICE_ROLE_KEY}" }
`);
    const env = { AGENT_API_KEY: 'k'.repeat(40), DATABASE_URL: 'postgres://u:p@db/x', OPENAI_API_KEY: 'sk-x', CUSTOMER_IDENTITY_SECRET: 's'.repeat(40), METRICS_TOKEN: 'm'.repeat(20) };
    const refused = (at: string, name: string) => `${file}: ${at}: \${${name}} is one of the service's own secrets: a shop file may not send it to another system (give the shop's API its own variable)`;
    expect(problemLines(file, env)).toEqual([
      refused('actions[0].headers.Authorization', 'AGENT_API_KEY'),
      refused('actions[0].headers.X-Db', 'DATABASE_URL'),
      refused('mcp_servers[0].headers.X-Key', 'OPENAI_API_KEY'),
      refused('mcp_servers[1].env.A', 'CUSTOMER_IDENTITY_SECRET'),
      refused('mcp_servers[1].env.B', 'METRICS_TOKEN'),
      refused('mcp_servers[1].env.C', 'SUPABASE_SERVICE_ROLE_KEY'),
    ]);
  });

  it('says what was expected of a wrong value, with its path in the lists', async () => {
    const file = await writeShop(`
name: Pine & Pebble
agents:
  - key: Help Desk
    description: d
    instructions: i
    memory: { mode: forever }
actions:
  - openapi: ./orders-api.yaml
    operations: [getOrder, "get order"]
support_hours:
  time_zone: Mars/Olympus
  weekly: { weekdays: 9-5 }
`);
    const lines = problemLines(file).map((l) => l.slice(file.length + 2));
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^agents\[0\]\.key: must be 1-40 lowercase letters/),
        expect.stringMatching(/^agents\[0\]\.memory\.mode: mode must be one of/),
        expect.stringMatching(/^actions\[0\]\.operations\[1\]: must be 1-64 letters/),
        expect.stringMatching(/^support_hours\.time_zone: must be an IANA time zone/),
        expect.stringMatching(/^support_hours\.weekly\.weekdays: must be days such as/),
      ]),
    );
  });

  it('refuses two agents with one key, a file without agents, broken YAML and a missing file', async () => {
    expect(problemLines(await writeShop(`${MINIMAL}  - { key: help, description: d, instructions: i }\n`))).toEqual([
      expect.stringMatching(/agents\[1\]\.key: "help" is already the key of agents\[0\]$/),
    ]);
    expect(problemLines(await writeShop('name: Pine & Pebble\nagents: []\n'))).toEqual([expect.stringMatching(/: agents: must list at least one agent/)]);
    expect(problemLines(await writeShop('name: [unclosed\n'))[0]).toMatch(/\(line \d+\): is not valid YAML or JSON/);
    expect(problemLines(path.join(dir, 'missing.yaml'))).toEqual([expect.stringMatching(/missing\.yaml: \(file\): cannot be read \(ENOENT\)/)]);
  });
});

test('field paths read as an operator writes them', () => {
  expect(formatPath(['actions', 0, 'operations', 1])).toBe('actions[0].operations[1]');
  expect(formatPath(['actions', 0, 'headers', 'X-Api-Key'])).toBe('actions[0].headers["X-Api-Key"]');
  expect(formatPath([])).toBe('(top level)');
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
