import type { StructuredTool, StructuredToolInterface } from '@langchain/core/tools';
import { loadMcpTools } from '@langchain/mcp-adapters';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ShopFileError, type McpServerConfig, type ShopFileProblem } from './connector-config';
import { expandRecord, type ConnectorContext } from './connector-context';
import { guardedTool, responseByteCap, type JsonSchemaObject } from './guarded-tool';
import { NetworkGuardError } from './network-guard';

/** Reconnection after a failed connection: the first wait, doubled each time up to the last. */
export const MCP_RETRY_FIRST_MS = 1_000;
export const MCP_RETRY_MAX_MS = 60_000;
/** The most bytes of one MCP response over HTTP (a tool list can be larger than one result). */
const MCP_MIN_RESPONSE_BYTES = 1024 * 1024;

/** One MCP server as the service sees it now. */
export interface McpServerStatus {
  name: string;
  connected: boolean;
  /** Why it is not connected (the last failure), when it is not. */
  error: string | null;
  /** The allowlisted tools it offers now. */
  tools: string[];
}

/**
 * The shop's MCP servers as a source of tools. Servers connect in the background
 * after a failure, so the list changes: read `tools()` per run.
 */
export interface McpToolSource {
  /**
   * The allowlisted tools of the servers connected now, wrapped like the actions
   * (binding, timeout, redaction, token cap, trace). The same array until a server
   * connects or disconnects.
   */
  tools(): StructuredTool[];
  /** Every tool name the shop file allows from its MCP servers, connected or not (for checking the agents' `tools`). */
  readonly toolNames: readonly string[];
  status(): McpServerStatus[];
  /** Stops reconnecting and closes every connection (stdio servers' processes end). */
  close(): Promise<void>;
}

/**
 * Connects the shop's MCP servers (streamable HTTP through the network guard, or a
 * stdio command) through @langchain/mcp-adapters, offering only each server's
 * listed tools. A server that cannot be reached at start is reported in the log and
 * its tools are left out; it is retried in the background with backoff (1 s doubling
 * to 60 s), as is a server whose connection closes later.
 *
 * Throws ShopFileError for mistakes in the file: an unset `${VAR}`, a URL the guard
 * refuses (private without allow_private_network, a metadata address always), the
 * same tool name from two servers, and (once connected) a `bind` name that no listed
 * tool of its server takes. A server that connects later with such a bind offers no
 * tools, and a tool that loses a bound argument on a reconnect is withdrawn (both
 * logged at error level).
 */
export async function connectMcpServers(servers: McpServerConfig[], ctx: ConnectorContext): Promise<McpToolSource> {
  const problems: ShopFileProblem[] = [];
  const owners = new Map<string, string>();
  const prepared: Array<{ config: McpServerConfig; headers: Record<string, string>; env: Record<string, string> }> = [];
  for (const [index, server] of servers.entries()) {
    const at = `mcp_servers[${index}]`;
    const headers = expandRecord(server.headers, ctx.env, `${at}.headers`, problems);
    const env = expandRecord(server.env, ctx.env, `${at}.env`, problems);
    server.tools.forEach((name, k) => {
      const owner = owners.get(name);
      if (owner) problems.push({ path: `${at}.tools[${k}]`, message: `a tool named "${name}" already comes from ${owner}` });
      else owners.set(name, `${at}.tools[${k}]`);
    });
    if (server.url) {
      try {
        await ctx.guard.check(server.url, { allowPrivateNetwork: server.allow_private_network });
      } catch (error) {
        if (!(error instanceof NetworkGuardError && error.reason === 'dns')) problems.push({ path: `${at}.url`, message: (error as Error).message });
      }
    }
    prepared.push({ config: server, headers, env });
  }
  if (problems.length > 0) throw new ShopFileError(problems);

  const connections = prepared.map((p) => new McpConnection(p.config, p.headers, p.env, ctx));
  let list: StructuredTool[] = [];
  let listedFrom: StructuredTool[][] = [];
  // The first attempt of every server, side by side; those that fail retry on their own.
  await Promise.all(connections.map((c) => c.connect()));
  // A bind that no listed tool takes would leave the customer's argument to the model: the start stops.
  const bindProblems = connections.flatMap((c, index) => c.unmatchedBindings.map((p) => ({ path: `mcp_servers[${index}].bind.${p.name}`, message: p.message })));
  if (bindProblems.length > 0) {
    await Promise.all(connections.map((c) => c.close()));
    throw new ShopFileError(bindProblems);
  }
  return {
    tools() {
      const current = connections.map((c) => c.tools);
      if (current.length !== listedFrom.length || current.some((tools, i) => tools !== listedFrom[i])) {
        listedFrom = current;
        list = current.flat();
      }
      return list;
    },
    toolNames: [...owners.keys()],
    status: () => connections.map((c) => c.status()),
    close: async () => {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}

/** One server's connection, its wrapped tools while it is up, and its reconnection. */
class McpConnection {
  /** The wrapped tools while connected; a new array on each (re)connection. */
  tools: StructuredTool[] = [];
  private client: Client | null = null;
  private error: string | null = null;
  private retryMs = MCP_RETRY_FIRST_MS;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Bound names no listed tool took at the first connection (at start: a shop-file problem). */
  unmatchedBindings: Array<{ name: string; message: string }> = [];
  /** Which bound names each tool took when the bindings were first checked: a tool that later lacks one is withdrawn. */
  private boundTaken: Map<string, string[]> | null = null;
  private firstAttempt = true;

  constructor(
    private readonly config: McpServerConfig,
    private readonly headers: Record<string, string>,
    private readonly env: Record<string, string>,
    private readonly ctx: ConnectorContext,
  ) {}

  status(): McpServerStatus {
    return { name: this.config.name, connected: this.client !== null, error: this.error, tools: this.tools.map((t) => t.name) };
  }

  async connect(): Promise<void> {
    const { config, ctx } = this;
    // The attempt connectMcpServers awaits at start; any later one is in the background.
    const atStart = this.firstAttempt;
    this.firstAttempt = false;
    const client = new Client({ name: 'support-agent', version: '1.0.0' });
    try {
      await client.connect(this.transport(), { timeout: config.timeout_ms });
      const offered = await loadMcpTools(config.name, client, { throwOnLoadError: false });
      const listed = offered.filter((t) => config.tools.includes(t.name));
      const missing = config.tools.filter((name) => !listed.some((t) => t.name === name));
      if (missing.length > 0) {
        ctx.logger.warn({ mcp_server: config.name, missing }, `MCP server ${config.name} does not offer ${missing.join(', ')}: left out`);
      }
      if (this.closed) {
        await client.close();
        return;
      }
      const usable = this.checkBindings(listed, atStart);
      if (usable === null) {
        // At start: a shop-file problem, reported by connectMcpServers. Later: the server's tools are withdrawn.
        this.error = `its bind matches no listed tool (${this.unmatchedBindings.map((p) => p.name).join(', ')})`;
        this.tools = [];
        await client.close().catch(() => {});
        if (atStart) this.closed = true;
        // Later, the server may be put right: it is tried again as after a failure.
        else this.scheduleRetry();
        return;
      }
      this.tools = usable.map((t) => this.wrap(t));
      this.client = client;
      this.error = null;
      this.retryMs = MCP_RETRY_FIRST_MS;
      // A connection that ends later (the process exits, the server goes away) is retried.
      client.onclose = () => this.lost('the connection closed');
      ctx.logger.info({ mcp_server: config.name, tools: this.tools.map((t) => t.name) }, `MCP server ${config.name} connected: ${this.tools.length} tool(s)`);
    } catch (error) {
      await client.close().catch(() => {});
      this.error = describe(error);
      ctx.logger.error(
        { mcp_server: config.name, tools_left_out: config.tools, retry_in_ms: this.retryMs },
        `MCP server ${config.name} cannot be reached (${this.error}): its tools (${config.tools.join(', ')}) are left out; retrying in ${Math.round(this.retryMs / 1000)} s`,
      );
      this.scheduleRetry();
    }
  }

  /**
   * The listed tools that may be offered, given the server's `bind`: null when a bound
   * name is taken by no listed tool (every tool withdrawn: the binding was meant for
   * one of them, and which cannot be told); otherwise the tools, less any that took a
   * bound name at the first check and lacks it now (a renamed argument). Withdrawals
   * are logged at error level.
   */
  private checkBindings(listed: StructuredToolInterface[], atStart: boolean): StructuredToolInterface[] | null {
    const { config, ctx } = this;
    const bound = Object.keys(config.bind);
    if (bound.length === 0) return listed;
    const argumentsOf = (t: StructuredToolInterface) => Object.keys((t.schema as JsonSchemaObject).properties ?? {});
    const unmatched = bound.filter((name) => !listed.some((t) => argumentsOf(t).includes(name)));
    if (unmatched.length > 0) {
      const offered = listed.map((t) => `${t.name} takes ${argumentsOf(t).join(', ') || 'nothing'}`).join('; ');
      this.unmatchedBindings = unmatched.map((name) => ({ name, message: `no listed tool of MCP server ${config.name} has an argument "${name}" (${offered || 'it offers none of the listed tools'})` }));
      if (!atStart) {
        ctx.logger.error(
          { mcp_server: config.name, unmatched_bindings: unmatched, tools_withdrawn: listed.map((t) => t.name) },
          `MCP server ${config.name}: its bind (${unmatched.join(', ')}) matches no listed tool now, so its tools are withdrawn (a renamed argument would let the model choose the customer)`,
        );
      }
      return null;
    }
    this.unmatchedBindings = [];
    const taken = new Map(listed.map((t) => [t.name, bound.filter((name) => argumentsOf(t).includes(name))]));
    if (this.boundTaken === null) {
      this.boundTaken = taken;
      return listed;
    }
    const before = this.boundTaken;
    return listed.filter((t) => {
      const lost = (before.get(t.name) ?? []).filter((name) => !taken.get(t.name)!.includes(name));
      if (lost.length === 0) return true;
      ctx.logger.error(
        { mcp_server: config.name, tool: t.name, lost_bindings: lost },
        `MCP server ${config.name}: ${t.name} no longer takes its bound argument ${lost.join(', ')}, so it is withdrawn`,
      );
      return false;
    });
  }

  private lost(why: string): void {
    if (this.closed || this.client === null) return;
    this.client = null;
    this.tools = [];
    this.error = why;
    this.ctx.logger.warn({ mcp_server: this.config.name }, `MCP server ${this.config.name}: ${why}; its tools are left out until it is back`);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.timer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MCP_RETRY_MAX_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, wait);
    this.timer.unref();
  }

  private transport(): Transport {
    const { config, ctx } = this;
    if (config.url) {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        fetch: ctx.guard.fetchFunction({
          allowPrivateNetwork: config.allow_private_network,
          maxBytes: Math.max(MCP_MIN_RESPONSE_BYTES, responseByteCap(config.max_result_tokens)),
          // The SDK's own request timeout does not end its fetch: each request gets the call's deadline here.
          timeoutMs: config.timeout_ms,
        }),
        requestInit: { headers: this.headers },
      });
    }
    const transport = new StdioClientTransport({
      command: config.command!,
      args: config.args,
      // The service's own environment (its secrets) is not passed on: only the basics and what the file names.
      env: { ...getDefaultEnvironment(), ...this.env },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => ctx.logger.debug({ mcp_server: config.name }, chunk.toString('utf8').trimEnd()));
    return transport;
  }

  /** The adapters' tool under the shared wrapping, bound arguments hidden from the model. */
  private wrap(adapted: StructuredToolInterface): StructuredTool {
    const { config } = this;
    const schema = withoutBound(adapted.schema as JsonSchemaObject, Object.keys(config.bind));
    return guardedTool(
      {
        name: adapted.name,
        description: adapted.description,
        schema,
        bind: Object.fromEntries(Object.entries(config.bind).filter(([name]) => name in ((adapted.schema as JsonSchemaObject).properties ?? {}))),
        timeoutMs: config.timeout_ms,
        maxResultTokens: config.max_result_tokens,
        trace: { kind: 'mcp', source: config.name },
        call: async (args, signal) => {
          const content: unknown = await adapted.invoke(args, { signal });
          const text = contentText(content);
          return { text, failed: false, bytes: Buffer.byteLength(text) };
        },
      },
      this.ctx,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    this.tools = [];
    await client?.close().catch(() => {});
  }
}

/** A tool's JSON schema without the bound properties. */
function withoutBound(schema: JsonSchemaObject, bound: string[]): JsonSchemaObject {
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([name]) => !bound.includes(name)));
  const required = (schema.required ?? []).filter((name) => !bound.includes(name));
  return { ...schema, type: 'object', properties, ...(schema.required && { required }) };
}

/** What an MCP tool returned, as text: its text blocks, anything else as JSON. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((block) => (block && typeof block === 'object' && 'text' in block && typeof block.text === 'string' ? block.text : JSON.stringify(block))).join('\n');
  }
  return JSON.stringify(content);
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
