/**
 * A shop file with mistakes stops the real process (`tsx src/index.ts`) before
 * it opens its database or listens: exit code 1, one line per problem naming
 * the file, the field's path and what was expected.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startServiceProcess, stopServiceProcess, type ServiceProcess } from '../support/processes';
import { makeTempDir } from '../support/test-service';

let service: ServiceProcess | undefined;
afterEach(async () => {
  await stopServiceProcess(service);
});

test('an unknown field, an unset ${VAR} and an agent naming an unknown tool stop the start with exit code 1, before it listens', async () => {
  const dir = await makeTempDir('bad-shop-');
  const file = path.join(dir, 'shop.yaml');
  await fs.writeFile(
    file,
    `name: Pine & Pebble
agents:
  - key: garden
    description: Garden questions.
    instructions: You help Pine & Pebble's customers.
    tools: [search_knowledge_base]
  - key: orders
    description: Orders.
    instructions: You look orders up for Pine & Pebble.
    tools: [search_knowledge_base, getOrder, trackParcel]
actions:
  - openapi: ./orders-api.yaml
    operations: [getOrder]
    headers: { Authorization: "Bearer \${PINE_API_TOKEN}" }
colour: green
`,
  );
  const dataDir = path.join(dir, 'data');
  service = await startServiceProcess({ SHOP_FILE: file, DATA_DIR: dataDir });
  const { code } = await service.exited;
  const lines = service.output().trim().split('\n');
  expect(code).toBe(1);
  expect(lines).toEqual([
    'Failed to start: the shop file has 3 problem(s):',
    `${file}: colour: is not a field of the shop file here (unknown fields are mistakes; check the spelling)`,
    `${file}: actions[0].headers.Authorization: \${PINE_API_TOKEN} is not set in the environment`,
    `${file}: agents[1].tools[2]: no tool is named "trackParcel"; the tools are (built-in: lookup_order, get_user_profile, search_knowledge_base; actions: getOrder)`,
  ]);
  // Nothing was opened: the embedded database's folder was never made.
  await expect(fs.access(dataDir)).rejects.toThrow(/ENOENT/);
});
