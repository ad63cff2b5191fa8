/**
 * /openapi.json is every shop's: its examples name none, neither the sample shop's
 * name nor its customers, their e-mail addresses or its order numbers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { apiRoutes } from '../../src/http/openapi/api-routes';
import { openApiDocument } from '../../src/http/openapi/document';
import { loadSampleShop } from '../../src/shop/sample-shop';

const REPO_ROOT = path.resolve(__dirname, '../..');

test("the API document's examples name no shop, no sample customer and no sample order", () => {
  const text = JSON.stringify(
    openApiDocument(apiRoutes({ messageMaxChars: 4000, historyLimitMax: 200, agentTypes: ['support'], knowledgeDocumentMaxBytes: 1_000_000, demoPage: false }), { version: 'test' }),
  );
  const shop = loadSampleShop();
  const seed = fs.readFileSync(path.join(REPO_ROOT, 'shops/sample/seed.sql'), 'utf8');
  const customers = [...seed.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]!);
  const emails = [...seed.matchAll(/"user_id":"([^"]+)"/g)].map((m) => m[1]!);
  const firstNames = customers.map((n) => n.split(' ')[0]!.toLowerCase());
  expect(customers.length).toBeGreaterThan(3);
  const lower = text.toLowerCase();
  for (const name of [shop.name, ...customers, ...emails, 'Lukas Brandt']) expect(lower).not.toContain(name.toLowerCase());
  for (const first of firstNames) expect(lower).not.toMatch(new RegExp(`\\b${first}\\b`));
  expect(text).not.toMatch(new RegExp(`\\b${shop.orderNumbers!.prefix}-\\d`));
});
