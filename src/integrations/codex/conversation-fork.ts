import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Waypoint } from '../../engine/index.js';
import { WaypointError } from '../../model/index.js';

/** A Codex session written for `codex resume`: its id and rollout file. */
export interface CodexConversationFork {
  codexSessionId: string;
  rolloutPath: string;
  /** The Codex session it was cut from. */
  parentCodexSessionId: string;
}

function refuse(code: string, message: string, details: Record<string, unknown>): WaypointError {
  return new WaypointError({ code, message, details });
}

/**
 * Writes Codex a copy of a recorded Codex session's conversation cut before the prompt `messageId`
 * (a person's input of the Waypoint session `sessionId`), under a new Codex session id, beside the
 * original rollout; `codex resume <id>` (or `codex exec resume <id> …`) continues it, and the model
 * then sees only what came before that prompt. The original rollout is only read. Refuses a session
 * Codex did not record (`CODEX_SESSION_REQUIRED`), a message that is no recorded Codex prompt
 * (`CODEX_PROMPT_NOT_FOUND`), and a rollout that is gone or not as Codex wrote it
 * (`CODEX_ROLLOUT_UNREADABLE`). Checked with Codex 0.171: the rollout is Codex's internal format.
 */
export async function forkCodexConversation(waypoint: Waypoint, sessionId: string, messageId: string): Promise<CodexConversationFork> {
  const session = await waypoint.store.getSession(sessionId);
  const { agent, codexSessionId, transcriptPath } = session.metadata as { agent?: unknown; codexSessionId?: unknown; transcriptPath?: unknown };
  if (agent !== 'codex' || typeof codexSessionId !== 'string' || typeof transcriptPath !== 'string')
    throw refuse('CODEX_SESSION_REQUIRED', `Session ${sessionId} was not recorded from Codex CLI with its rollout`, { sessionId });
  const message = await waypoint.store.findMessage(messageId);
  const turn = message?.turnId ? await waypoint.store.getTurn(message.turnId) : null;
  const codexTurnId = turn?.metadata.codexTurnId;
  if (message === null || message.sessionId !== sessionId || message.role !== 'user' || typeof codexTurnId !== 'string')
    throw refuse('CODEX_PROMPT_NOT_FOUND', `Message ${messageId} is no Codex prompt of session ${sessionId}`, { sessionId, messageId });
  return cutRollout(transcriptPath, codexSessionId, codexTurnId);
}

/** The rollout's lines before the Codex turn `codexTurnId` began, under a new id, written whole and synced. */
export function cutRollout(rolloutPath: string, codexSessionId: string, codexTurnId: string): CodexConversationFork {
  let lines: string[];
  try {
    lines = readFileSync(rolloutPath, 'utf8').split('\n');
  } catch (error) {
    throw refuse('CODEX_ROLLOUT_UNREADABLE', `Cannot read Codex's rollout ${rolloutPath}: ${(error as Error).message}`, { rolloutPath });
  }
  const parsed = lines.map((line) => {
    try {
      return line.trim() === '' ? null : (JSON.parse(line) as RolloutLine);
    } catch {
      return null;
    }
  });
  const head = parsed[0];
  if (head?.type !== 'session_meta' || head.payload?.id !== codexSessionId)
    throw refuse('CODEX_ROLLOUT_UNREADABLE', `${rolloutPath} does not begin with the session ${codexSessionId}`, { rolloutPath });
  const cut = parsed.findIndex((line) => line !== null && turnOf(line) === codexTurnId);
  if (cut <= 0) throw refuse('CODEX_PROMPT_NOT_FOUND', `Codex's rollout holds no turn ${codexTurnId}`, { rolloutPath, codexTurnId });
  const id = uuidV7();
  // Every JSON string that is exactly the old id names this session (the thread, the session): the new id there.
  const quoted = JSON.stringify(codexSessionId);
  const kept = lines
    .slice(0, cut)
    .filter((line) => line.trim() !== '')
    .map((line) => line.split(quoted).join(JSON.stringify(id)));
  const name = basename(rolloutPath).includes(codexSessionId) ? basename(rolloutPath).replace(codexSessionId, id) : `rollout-${id}.jsonl`;
  const target = join(dirname(rolloutPath), name);
  writeWhole(target, `${kept.join('\n')}\n`, statSync(rolloutPath).mode & 0o777);
  return { codexSessionId: id, rolloutPath: target, parentCodexSessionId: codexSessionId };
}

interface RolloutLine {
  type?: string;
  payload?: {
    id?: string;
    type?: string;
    turn_id?: string;
    turn_attribution?: { turn_id?: string };
    internal_chat_message_metadata_passthrough?: { turn_id?: string };
  };
}

/** The Codex turn a rollout line belongs to, when it names one: its start, its context, its items. */
function turnOf(line: RolloutLine): string | undefined {
  const payload = line.payload;
  if (payload === undefined || payload === null) return undefined;
  if (line.type === 'turn_context') return payload.turn_id;
  if (line.type === 'event_msg' && payload.type === 'task_started') return payload.turn_attribution?.turn_id ?? payload.turn_id;
  if (line.type === 'response_item') return payload.internal_chat_message_metadata_passthrough?.turn_id;
  return undefined;
}

/** A time-ordered UUID (version 7), the kind Codex gives its sessions. */
function uuidV7(): string {
  const bytes = randomBytes(16);
  const now = BigInt(Date.now());
  for (let index = 0; index < 6; index++) bytes[index] = Number((now >> BigInt(8 * (5 - index))) & 0xffn);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Writes a new file whole or not at all: a synced temporary renamed into place, then the directory synced. */
function writeWhole(path: string, text: string, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'wx', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
