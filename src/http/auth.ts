import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { UnauthorizedError } from '../errors';

/**
 * Lets a request through only with `Authorization: Bearer <agent key>`. The key is
 * compared in constant time (over digests, so lengths leak nothing either).
 */
export function requireAgentKey(agentApiKey: string): RequestHandler {
  const isAgent = agentKeyCheck(agentApiKey);
  return (req, _res, next) => {
    next(isAgent(req) ? undefined : new UnauthorizedError());
  };
}

/** Whether a request carries `Authorization: Bearer <agent key>`. */
export function agentKeyCheck(agentApiKey: string): (req: Request) => boolean {
  const expected = digest(agentApiKey);
  return (req) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
