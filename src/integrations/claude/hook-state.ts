import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SkippedPath } from '../../workspace/index.js';

/** A file tool call between its PreToolUse and its PostToolUse: the file and what it held before. */
export interface PendingFileCall {
  path: string;
  /** Blob of the content before the call (null: the file did not exist). Pinned until the call ends. */
  beforeHash: string | null;
  beforeMode: number | null;
  toolName: string;
}

/** A scanned tool call (Bash, MCP …) that started and has not ended (a background command until Stop). */
export interface OpenScannedCall {
  toolName: string;
  command: string | null;
  background: boolean;
  /** Its PostToolUse came (a background command's comes as soon as it started). */
  posted: boolean;
}

/**
 * What the hook handler remembers of one Claude session between its processes. It is a cache of
 * the calls in flight and of how far the transcript was mirrored: the records themselves are in
 * the store, and a lost state file only costs a re-read of the transcript.
 */
export interface HookState {
  version: 1;
  claudeSessionId: string;
  /** Claude's prompt id → the Waypoint turn recording it. */
  turns: Record<string, string>;
  files: Record<string, PendingFileCall>;
  scanned: Record<string, OpenScannedCall>;
  /** What the baseline scan skipped (passed back when the scanned calls end). */
  baselineSkipped: SkippedPath[];
  /** The session's newest checkpoint when the baseline was taken: later ones are the window's own records. */
  baselineSeq: number;
  /** When the baseline scan started (ms): other sessions' checkpoints since then fall inside the window. */
  baselineAt: number;
  /** The turn the open scan window belongs to (a background command's window outlives its prompt's Stop). */
  scanTurnId?: string;
  /** Bytes of the transcript already mirrored (complete lines only). */
  transcriptOffset: number;
  /** Tool names by tool_use id, to name the tool of a mirrored result. */
  toolNames: Record<string, string>;
}

export function emptyHookState(claudeSessionId: string): HookState {
  return {
    version: 1,
    claudeSessionId,
    turns: {},
    files: {},
    scanned: {},
    baselineSkipped: [],
    baselineSeq: 0,
    baselineAt: 0,
    transcriptOffset: 0,
    toolNames: {},
  };
}

export function loadHookState(path: string, claudeSessionId: string): HookState {
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as HookState;
    if (state.version === 1 && state.claudeSessionId === claudeSessionId) return state;
  } catch {
    // Missing or unreadable: start over (the transcript is mirrored again, idempotently).
  }
  return emptyHookState(claudeSessionId);
}

/** Written to a temp file and renamed into place, so a reader never sees half a state. */
export function saveHookState(path: string, state: HookState): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(state));
  renameSync(temp, path);
}
