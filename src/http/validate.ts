import type { z } from 'zod';
import { ValidationError } from '../errors';

/** Parses input with a schema, or throws a ValidationError that names each bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return `unknown field(s)${path.length > 0 ? ` in ${path.join('.')}` : ''}: ${issue.keys.join(', ')}`;
    }
    if (issue.code === 'invalid_type' && path.length === 0) return 'the request body must be a JSON object';
    return withFieldPath(path, issue.message);
  });
  throw new ValidationError(problems.join('; '));
}

/**
 * Messages name their own field ("mode must be …"); a nested one gets its parents
 * ("memory_strategy.mode must be …"), and one that names no field gets its path.
 */
function withFieldPath(path: string[], message: string): string {
  const field = path.at(-1);
  if (field === undefined) return message;
  if (message.startsWith(field)) return [...path.slice(0, -1), message].join('.');
  return `${path.join('.')}: ${message}`;
}
