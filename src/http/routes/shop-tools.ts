import { Router } from 'express';
import type { StructuredTool } from '@langchain/core/tools';
import { z } from 'zod';
import { AppError, NotFoundError } from '../../errors';
import type { RecordingNetworkGuard } from '../../connectors/recording-guard';
import type { Logger } from '../../observability/logger';
import { describeShopTools } from '../../shop/tool-descriptions';
import { recordToolTrial, TrialInputError, tryShopTool, type ToolTrialRecorder } from '../../shop/tool-trial';
import { requireAgentKey } from '../auth';
import { parseInput } from '../validate';

export interface ShopToolsRoutesParts {
  /** The tools of the shop's systems offered now (actions, connected MCP servers' tools). */
  tools: () => StructuredTool[];
  /** The service's own guard, which every tool's request goes through: it notes what a trial sent. */
  guard: RecordingNetworkGuard;
  /** The agents and the tools each names. */
  agents: Array<{ key: string; tools: string[] }>;
  /** Where every trial is recorded (GET /api/v1/audit/tool-trials lists them). */
  trials: ToolTrialRecorder;
  agentApiKey: string;
  logger: Logger;
}

/** A tool name as the shop file may write it (the connectors' own rule). */
export const shopToolNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'name must be 1-64 letters, digits, "_" or "-"');

/** POST /api/v1/shop/tools/:name/try: as whom, and with which arguments. */
export const toolTrialRequestSchema = z.strictObject({
  /** The verified customer the tool runs as (a customer token's `sub`); absent: an anonymous conversation. */
  customer_id: z.string().trim().min(1, 'customer_id must not be empty').max(200, 'customer_id must be at most 200 characters').optional(),
  /** The customer's e-mail (a customer token's `email` claim), for actions that bind customer.email. */
  customer_email: z.email('customer_email must be an e-mail address').max(254).optional(),
  /** The arguments as the model would send them; bound ones are filled from the customer whatever is given. */
  arguments: z.record(z.string().max(200), z.unknown()).default({}),
});

const toolDescriptionSchema = z.object({
  name: z.string(),
  kind: z.enum(['action', 'mcp']),
  source: z.string(),
  method: z.string().nullable(),
  writes: z.enum(['yes', 'no', 'unknown']),
  description: z.string(),
  arguments: z.array(z.object({ name: z.string(), required: z.boolean(), type: z.string() })),
  bound: z.array(z.object({ name: z.string(), from: z.string() })),
  /** Whether the console may try it: only tools that do not write. */
  can_try: z.boolean(),
  agents: z.array(z.string()),
});

export const shopToolListSchema = z.object({ tools: z.array(toolDescriptionSchema) });

export const toolTrialSchema = z.object({
  tool: z.string(),
  customer: z.string().nullable(),
  arguments: z.record(z.string(), z.unknown()),
  sent: z.array(z.object({ method: z.string(), url: z.string(), headers: z.record(z.string(), z.string()), body: z.string().nullable() })),
  received: z.string(),
});

/** Trying a tool that writes from a browser is refused: an agent key must not cancel a customer's order by a click. */
class ToolWritesError extends AppError {
  constructor(name: string) {
    super(403, 'tool_writes', `${name} may write (it is not a GET action), so it is not tried from the console; an operator can try it with npm run shop -- try.`);
  }
}

/**
 * The console's tools page (agent key): the shop's tools with their arguments,
 * bindings and agents, and a trial of one read-only tool as a verified customer,
 * through the very tool the agents are offered (binding, headers, guard, caps,
 * redaction). What was sent comes back with header values hidden. Tools that write
 * (any action but a GET, every MCP tool) are listed but not tried here. Every trial,
 * refused ones included, is recorded (source `console`).
 */
export function shopToolsRoutes(parts: ShopToolsRoutesParts): Router {
  const router = Router();
  router.use('/shop/tools', requireAgentKey(parts.agentApiKey));

  router.get('/shop/tools', (_req, res) => {
    const tools = describeShopTools(parts.tools()).map((tool) => ({
      ...tool,
      can_try: tool.writes === 'no',
      agents: parts.agents.filter((a) => a.tools.includes(tool.name)).map((a) => a.key),
    }));
    res.json({ tools });
  });

  router.post('/shop/tools/:name/try', async (req, res) => {
    const name = parseInput(shopToolNameSchema, req.params.name);
    const body = parseInput(toolTrialRequestSchema, req.body ?? {});
    const tool = parts.tools().find((t) => t.name === name);
    const [description] = tool ? describeShopTools([tool]) : [];
    if (!tool || !description) throw new NotFoundError(`No tool of the shop's systems is named ${name} (an MCP server's tools appear once it is connected).`);
    const customer = body.customer_id ? { id: body.customer_id, email: body.customer_email ?? null } : null;
    if (description.writes !== 'no') {
      // Refused, but asked for as a customer: recorded all the same.
      await recordToolTrial(parts.trials, { source: 'console', tool: name, customer, arguments: body.arguments, bound: [], outcome: { outcome: 'refused', errorCode: 'tool_writes' } });
      throw new ToolWritesError(name);
    }
    try {
      const trial = await tryShopTool({ tool, guard: parts.guard, customer, arguments: body.arguments, source: 'console', recorder: parts.trials });
      // No customer id or argument in the log: they are a customer's data.
      parts.logger.info({ tool: name, requests: trial.sent.length }, `Tool ${name} tried from the console`);
      res.json(trial);
    } catch (error) {
      if (error instanceof TrialInputError) throw new AppError(400, 'invalid_request', error.message);
      throw error;
    }
  });
  return router;
}
