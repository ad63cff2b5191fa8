/**
 * npm run shop -- check [--file shop.yaml]
 * npm run shop -- try <tool> [--customer <id>] [--email <address>] [--file shop.yaml] key=value…
 *
 * Tries the shop's own tools before a model is paid for. `check` reads the shop
 * file (SHOP_FILE, or --file), every OpenAPI document and every MCP server, lists
 * each tool with its arguments, which are bound and whether it writes, then runs
 * its named checks: each action's API called once with the file's credentials (a
 * refused key or an unreachable server is a problem) and each knowledge site's
 * sitemap or start page fetched; it exits 1 with one line per problem.
 * `try` calls one tool as a conversation of that verified customer would (through
 * the network guard, with the binding, the headers, the caps and the redaction)
 * and prints what was sent (header values hidden) and what the model would receive.
 * Without --customer the conversation is anonymous: a bound tool gets the shop's
 * own sign-in sentence, in its first language. Arguments the tool does not take
 * are named with what each expects. The trial is recorded in the service's
 * database (GET /api/v1/audit/tool-trials, source `cli`), so `try` needs it: on the
 * embedded database while the service runs (it locks the folder), stop the service
 * or try a read-only tool from the console. Nothing else is stored.
 */
import { TOOL_NAMES } from '../src/agent/tools';
import { loadConfig, loadDotEnvFile, type Config } from '../src/config';
import { describeStorage, openStorage, type OpenStorage } from '../src/dependencies';
import type { ConnectorContext } from '../src/connectors/connector-context';
import { RecordingNetworkGuard } from '../src/connectors/recording-guard';
import { TokenCounter } from '../src/memory/tokens';
import { NO_TRACING } from '../src/observability/langfuse';
import { createLogger } from '../src/observability/logger';
import { Redactor } from '../src/privacy/redaction';
import { applyMigrations } from '../src/store/migrations';
import { DataDirInUseError } from '../src/store/pglite';
import { loadShop, SAMPLE_SHOP_FILE, ShopFileRejectedError } from '../src/shop/load-shop';
import { checkShop, type ShopCheck } from '../src/shop/shop-check';
import { connectShopSystems } from '../src/shop/shop-tools';
import { wordsFor } from '../src/shop/shop-words';
import { describeShopTools, type ToolDescription } from '../src/shop/tool-descriptions';
import { argumentsFromPairs, TrialInputError, tryShopTool, type ToolTrial } from '../src/shop/tool-trial';

const USAGE = `Usage:
  npm run shop -- check [--file shop.yaml]
  npm run shop -- try <tool> [--customer <id>] [--email <address>] [--file shop.yaml] key=value…`;

/** A mistake on the command line: the usage is printed with it, exit code 2. */
class UsageError extends Error {}

interface CommandLine {
  command: string;
  positional: string[];
  options: Map<string, string>;
}

function parseCommandLine(argv: string[]): CommandLine {
  const [command = '', ...rest] = argv;
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    const option = /^--(file|customer|email)(?:=(.*))?$/.exec(word);
    if (option) {
      const value = option[2] ?? rest[++i];
      if (value === undefined || value === '') throw new UsageError(`--${option[1]} needs a value`);
      options.set(option[1]!, value);
    } else if (word.startsWith('--')) {
      throw new UsageError(`unknown option ${word}`);
    } else {
      positional.push(word);
    }
  }
  return { command, positional, options };
}

/** What the connectors need, as the service builds it from the same environment. */
function connectorContext(config: Config, guard: RecordingNetworkGuard): Omit<ConnectorContext, 'shopFileDir'> {
  return {
    env: config.shop.env,
    guard,
    redactor: new Redactor(config.redaction.detectors),
    tokenCounter: new TokenCounter(config.openai.chatModel),
    // The report says what went wrong, one line each; the connectors' own logs would repeat it.
    logger: createLogger('silent'),
    tracing: NO_TRACING,
  };
}

/** One line on the escalation threshold: the figure the service measures lives in the running service's /health. */
function describeEscalationThreshold(config: Config): string {
  const { escalationThreshold, calibrateEscalation, escalationThresholdSet } = config.retrieval;
  if (calibrateEscalation) return `Escalation threshold: calibrated for the knowledge base and embedder at start and after each sync (until then ${escalationThreshold}); the measured figure is in /health (escalation_threshold).`;
  const why = escalationThresholdSet ? 'ESCALATION_CONFIDENCE_THRESHOLD' : "the embedder's default (ESCALATION_CALIBRATION=on measures one for the knowledge base)";
  return `Escalation threshold: ${escalationThreshold}, ${why}.`;
}

function describeTool(tool: ToolDescription): string[] {
  const writes = { yes: 'writes', no: 'read-only', unknown: 'may write (MCP tools do not say)' }[tool.writes];
  const via = tool.kind === 'action' ? `action ${tool.method} on ${tool.source}` : `MCP server ${tool.source}`;
  const args = tool.arguments.map((a) => `${a.name}${a.required ? '' : '?'}: ${a.type}`).join(', ') || '(none)';
  const bound = tool.bound.map((b) => `${b.name} <- ${b.from}`).join(', ') || '(none)';
  return [`  ${tool.name}  ${via}, ${writes}`, `    arguments: ${args}`, `    bound: ${bound}`];
}

function printCheck(check: ShopCheck): void {
  console.log(`Shop file: ${check.file}${check.name ? ` (${check.name})` : ''}`);
  if (check.name !== null) {
    console.log(`Tools of the shop's systems (${check.tools.length}):`);
    for (const tool of check.tools) for (const line of describeTool(tool)) console.log(line);
    for (const server of check.mcpServers) {
      console.log(`MCP server ${server.name}: ${server.connected ? `connected, offers ${server.tools.join(', ') || 'none of the listed tools'}` : 'not reached'}`);
    }
    for (const probe of check.probes) console.log(`Checked ${probe.check} (${probe.at}): ${probe.result}${probe.problem ? ' (a problem)' : ''}`);
    for (const agent of check.agents) {
      console.log(`Agent ${agent.key}: ${agent.tools.join(', ') || '(no tools)'}${agent.offline ? `; ${agent.offline}` : ''}`);
    }
  }
  if (check.problems.length === 0) {
    console.log('No problems found.');
    return;
  }
  console.log(`${check.problems.length} problem(s):`);
  for (const problem of check.problems) console.log(`problem: ${problem}`);
}

function printTrial(trial: ToolTrial): void {
  console.log(`${trial.tool}(${JSON.stringify(trial.arguments)}) as ${trial.customer ? `the verified customer ${trial.customer}` : 'an anonymous visitor (no --customer)'}`);
  if (trial.sent.length === 0) console.log('Sent: nothing over the network');
  for (const request of trial.sent) {
    console.log(`Sent: ${request.method} ${request.url}`);
    for (const [name, value] of Object.entries(request.headers)) console.log(`  ${name}: ${value}`);
    if (request.body !== null) console.log(`  body: ${request.body}`);
  }
  console.log('The model would receive:');
  for (const line of trial.received.split('\n')) console.log(`  ${line}`);
}

/** The database the trial is recorded in, migrated as `npm run ingest` does, before anything is called. */
async function openTrialAudit(config: Config): Promise<OpenStorage> {
  let storage: OpenStorage;
  try {
    storage = await openStorage(config, createLogger('silent'));
  } catch (error) {
    if (error instanceof DataDirInUseError) {
      throw new TrialNotRecordableError(
        `The embedded database (${describeStorage(config.storage)}) is in use by the running service, and every trial is recorded there. ` +
          'Stop the service to try from here, or try a read-only tool from the console (Tools page), which records it.',
      );
    }
    throw error;
  }
  try {
    if (storage.db) await applyMigrations(storage.db);
    // Supabase's API cannot migrate: the table must be there before anything is called.
    await storage.customerData.toolTrialPage(null, 1);
  } catch (error) {
    await storage.close();
    throw new TrialNotRecordableError(`The database cannot record tool trials (${(error as Error).message}): migrate it (npm run db:migrate, or supabase db push), then try again.`);
  }
  return storage;
}

/** The trial could not be recorded, so it was not made. */
class TrialNotRecordableError extends Error {}

async function main(argv: string[]): Promise<number> {
  loadDotEnvFile();
  const line = parseCommandLine(argv);
  const config = loadConfig();
  const file = line.options.get('file') ?? config.shop.file ?? SAMPLE_SHOP_FILE;
  const guard = new RecordingNetworkGuard();
  const context = connectorContext(config, guard);

  if (line.command === 'check') {
    if (line.positional.length > 0) throw new UsageError(`check takes no arguments (got ${line.positional.join(' ')})`);
    const check = await checkShop({ file, context, knowledgeSync: config.knowledgeSync });
    printCheck(check);
    console.log(describeEscalationThreshold(config));
    return check.problems.length === 0 ? 0 : 1;
  }
  if (line.command === 'try') {
    const [toolName, ...pairs] = line.positional;
    if (!toolName) throw new UsageError('try needs the name of a tool');
    const shop = loadShop({ file, sample: false, env: context.env, builtInTools: TOOL_NAMES });
    // The trial is recorded: without the database, nothing is tried.
    const storage = await openTrialAudit(config);
    const systems = await connectShopSystems(shop, context);
    try {
      const tool = systems.tools().find((t) => t.name === toolName);
      if (!tool) {
        const offered = describeShopTools(systems.tools()).map((t) => t.name);
        const builtIn = (TOOL_NAMES as readonly string[]).includes(toolName) ? ` ${toolName} is built in (it reads the service's database): try it in a conversation.` : '';
        console.error(`No tool of the shop's systems is named "${toolName}".${builtIn} The tools offered now: ${offered.join(', ') || '(none)'}`);
        return 1;
      }
      const customerId = line.options.get('customer');
      // The shop's own sentences in its first language, as a conversation in it gets them.
      const { sign_in, tool_failure, order_not_found, proof_limited } = wordsFor({ words: shop.words, languages: shop.languages ?? [] }, null);
      const trial = await tryShopTool({
        tool,
        guard,
        customer: customerId ? { id: customerId, email: line.options.get('email') ?? null } : null,
        arguments: argumentsFromPairs(pairs, tool),
        source: 'cli',
        recorder: storage.customerData,
        sentences: { sign_in, tool_failure, order_not_found, proof_limited },
      });
      printTrial(trial);
      console.log(`Recorded in the tool-trial audit of ${describeStorage(config.storage)} (GET /api/v1/audit/tool-trials).`);
      return 0;
    } finally {
      await systems.close();
      await storage.close();
    }
  }
  throw new UsageError(line.command ? `unknown command "${line.command}"` : 'a command is needed');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof ShopFileRejectedError) {
      for (const problem of error.message.split('\n')) console.error(`problem: ${problem}`);
      process.exit(1);
    }
    if (error instanceof TrialInputError || error instanceof TrialNotRecordableError) {
      console.error(error.message);
      process.exit(1);
    }
    console.error(`The shop command failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
