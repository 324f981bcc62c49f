import { displayPath } from '../../checkpoint/index.js';
import type { Waypoint } from '../../engine/index.js';
import { restorePreserved, type RestorePreservedResult } from '../../operations/index.js';
import { UsageError } from '../cli-errors.js';

/** `rewind <session> restore <rewindId|hash> [path]`: the tokens after `restore`. */
export function parseRestore(tokens: readonly string[]): { id: string; path?: string } {
  if (tokens.length < 1 || tokens.length > 2)
    throw new UsageError(`\`rewind <session> restore <rewindId|hash> [path]\` ${tokens.length < 1 ? 'is missing an argument' : 'has too many arguments'}`, {
      command: 'rewind',
    });
  return tokens.length === 2 ? { id: tokens[0]!, path: tokens[1]! } : { id: tokens[0]! };
}

/** Puts a kept-aside save back (the operation), with the lines that say what happened and how to undo it. */
export async function restoreKeptAside(
  waypoint: Waypoint,
  sessionId: string,
  tokens: readonly string[],
  undoHint?: (result: RestorePreservedResult) => string,
): Promise<{ data: RestorePreservedResult; text: string[] }> {
  const result = await restorePreserved({ waypoint }, { sessionId, ...parseRestore(tokens) });
  const { restored } = result;
  return {
    data: result,
    text: [
      `Put back ${displayPath(restored.path)} (${restored.hash.slice(0, 12)}), the save rewind ${restored.rewindId} kept aside; rewind ${result.rewindId}.`,
      undoHint ? undoHint(result) : `What it held before is kept; undo with: waypoint redo ${sessionId} ${result.rewindId}`,
    ],
  };
}
