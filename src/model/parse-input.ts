import type { z } from 'zod';
import { InvalidArgumentError } from './errors/index.js';

/**
 * Parse `value` with a boundary schema, turning a failure into an `InvalidArgumentError` that names
 * the field (`session.workdir`, `request.resolutions.x` …) and says what is wrong.
 *
 * @example
 * const input = parseInput(ForkRequest, request, 'request');
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, parameter: string): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.length ? `${parameter}.${issue.path.join('.')}` : parameter;
  throw new InvalidArgumentError({ parameter: path, value, reason: issue.message });
}
