import type { z } from 'zod';
import { ValidationError } from '../errors';

/** Parses input with a schema, or throws a ValidationError that names each bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
    if (issue.code === 'invalid_type' && issue.path.length === 0) return 'the request body must be a JSON object';
    return issue.message;
  });
  throw new ValidationError(problems.join('; '));
}
