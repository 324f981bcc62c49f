import { InvalidArgumentError, newId, type Message, type PartContent } from '../model/index.js';
import type { CheckpointRow } from './sqlite/rows.js';
import type { NewCheckpoint } from './store.js';

/** A message's parts as every backend stores them: `[[type, size], …]` for light reads, the JSON array of contents, and the blobs they name. */
export interface EncodedParts {
  meta: string;
  parts: string;
  blobHashes: string[];
}

/** Encodes parts for storage; a part without a string `type` is refused. */
export function encodeParts(contents: PartContent[]): EncodedParts {
  const meta: Array<[string, number]> = [];
  const serialized: string[] = [];
  const blobHashes: string[] = [];
  contents.forEach((content, index) => {
    if (typeof content?.type !== 'string') {
      throw new InvalidArgumentError({ parameter: `parts[${index}].type`, value: content?.type, reason: 'every part needs a string type.' });
    }
    const json = JSON.stringify(content);
    serialized.push(json);
    meta.push([content.type, Buffer.byteLength(json)]);
    if (typeof content.blobHash === 'string') blobHashes.push(content.blobHash);
  });
  return { meta: JSON.stringify(meta), parts: `[${serialized.join(',')}]`, blobHashes };
}

/** The kind a message gets from its role when the caller names none. */
export function defaultKind(role: Message['role']): Message['kind'] {
  if (role === 'user') return 'input';
  if (role === 'assistant') return 'reply';
  if (role === 'tool') return 'tool_result';
  return 'system';
}

/** A new checkpoint's row at sequence number `seq` of its session. */
export function checkpointRow(checkpoint: NewCheckpoint, seq: number, now: number): CheckpointRow {
  return {
    id: checkpoint.id ?? newId('checkpoint', now),
    session_id: checkpoint.sessionId,
    seq,
    turn_id: checkpoint.turnId ?? null,
    anchor_message_id: checkpoint.anchorMessageId ?? null,
    op: checkpoint.op,
    path: checkpoint.path,
    to_path: checkpoint.toPath ?? null,
    before_hash: checkpoint.beforeHash,
    after_hash: checkpoint.afterHash,
    before_mode: checkpoint.beforeMode ?? null,
    after_mode: checkpoint.afterMode ?? null,
    source: checkpoint.source,
    tool_name: checkpoint.toolName ?? null,
    tool_call_id: checkpoint.toolCallId ?? null,
    status: checkpoint.status ?? 'recorded',
    skip_reason: checkpoint.skipReason ?? null,
    created_at: now,
    patch: checkpoint.patch ?? null,
  };
}
