import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SkippedPath } from '../workspace/index.js';

/** A file a file tool names, and what it held before the call. */
export interface PendingFile {
  path: string;
  /** Blob of the content before the call (null: the file did not exist). Pinned until the call ends. */
  beforeHash: string | null;
  beforeMode: number | null;
}

/** A file tool call between its PreToolUse and its PostToolUse: the files it names (one for Claude's Edit, any number for Codex's apply_patch). */
export interface PendingFileCall {
  files: PendingFile[];
  toolName: string;
}

/** A scanned tool call (a shell command, an MCP tool …) that started and has not ended (a background command until Stop). */
export interface OpenScannedCall {
  toolName: string;
  command: string | null;
  background: boolean;
  /** Its PostToolUse came (a background command's comes as soon as it started). */
  posted: boolean;
}

/**
 * What the hook handler remembers of one agent session (Claude Code's, Codex's) between its
 * processes. It is a cache of the calls in flight and of how far the transcript was mirrored: the
 * records themselves are in the store, and a lost state file only costs a re-read of the transcript.
 */
export interface HookState {
  version: 2;
  agentSessionId: string;
  /** The agent's prompt (Claude) or turn (Codex) id → the Waypoint turn recording it. */
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
  /** A turn's final reply recorded from the agent's Stop event before its transcript had it (so the transcript's copy is not mirrored again), by Waypoint turn. */
  stopReplies?: Record<string, string>;
}

export function emptyHookState(agentSessionId: string): HookState {
  return {
    version: 2,
    agentSessionId,
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

export function loadHookState(path: string, agentSessionId: string): HookState {
  for (const file of [path, nextPath(path)]) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // Missing: a save may have stopped between its unlink and its rename (the next file is whole then).
      continue;
    }
    try {
      const state = JSON.parse(text) as HookState;
      if (state.version === 2 && state.agentSessionId === agentSessionId) return state;
    } catch {
      // Unreadable: start over.
    }
    break;
  }
  // Missing or unreadable: start over (the transcript is mirrored again, idempotently).
  return emptyHookState(agentSessionId);
}

/**
 * Written whole to a next file, then moved into place, so a reader never sees half a state: the
 * old file is unlinked before the rename, so the rename replaces nothing. (On ext4 a rename over
 * an existing file starts the new file's writeback and waits for the journal: milliseconds a save
 * when the disk is busy, on every hook event.) A save stopped between the unlink and the rename
 * leaves the whole next file, which {@link loadHookState} reads then.
 */
export function saveHookState(path: string, state: HookState): void {
  mkdirSync(dirname(path), { recursive: true });
  const next = nextPath(path);
  writeFileSync(next, JSON.stringify(state));
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  renameSync(next, path);
}

const nextPath = (path: string) => `${path}.next`;
