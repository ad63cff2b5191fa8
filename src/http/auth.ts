import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../errors';

/**
 * Lets a request through only with `Authorization: Bearer <agent key>`. The key is
 * compared in constant time (over digests, so lengths leak nothing either).
 */
export function requireAgentKey(agentApiKey: string): RequestHandler {
  const expected = digest(agentApiKey);
  return (req, _res, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      next(new UnauthorizedError());
      return;
    }
    next();
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
