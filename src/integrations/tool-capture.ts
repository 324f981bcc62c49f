import { lstatSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { baselineHandle, endExec, markScanBaseline, recordToolChange, type CaptureContext } from '../checkpoint/index.js';
import { endTaskCapture } from '../runtime/background-capture.js';
import type { Checkpoint } from '../model/index.js';
import type { HookState, PendingFile } from './hook-state.js';

/** The fields of a tool event (Claude Code's and Codex's share them) the capture reads. */
export interface ToolHookEvent {
  cwd: string;
  tool_name?: string | undefined;
  tool_input?: Record<string, unknown> | undefined;
  tool_use_id?: string | undefined;
}

/**
 * How a tool call is recorded, as its agent's handler decides: the files it names read before and
 * after (a file tool), a workspace scan around it (a shell command, an MCP tool, a background
 * command), or nothing (a tool that changes no file).
 */
export type ToolCoverage = { kind: 'files'; paths: string[] } | { kind: 'scan'; background?: boolean } | { kind: 'none' };

// The owner's name predates Codex's hooks; kept, so pins of calls in flight across an upgrade are still released.
const pinOwner = (sessionId: string, toolUseId: string) => `session:${sessionId}:claude-call:${toolUseId}`;

/**
 * PreToolUse. A file tool: the files it names are read and stored (pinned until the call ends), so
 * the PostToolUse can record before and after. Any other tool that may change files: the first of
 * the session's calls in flight scans the workspace and saves it as the baseline the calls' changes
 * are measured from; calls that start while one is in flight (parallel calls) share it.
 */
export async function beforeTool(context: CaptureContext, state: HookState, event: ToolHookEvent, coverage: ToolCoverage): Promise<void> {
  const toolName = event.tool_name ?? '';
  const toolUseId = event.tool_use_id ?? '';
  if (coverage.kind === 'none' || toolUseId === '') return;
  if (coverage.kind === 'files') {
    const files: PendingFile[] = [];
    const absolutes = [...new Set(coverage.paths.map((path) => resolve(event.cwd, path)))];
    for (const absolute of absolutes) {
      if (!isTracked(context, absolute)) continue;
      const file = readRegularFile(absolute);
      const beforeHash = file === null ? null : await context.blobs.put(file.content);
      files.push({ path: absolute, beforeHash, beforeMode: file?.mode ?? null });
    }
    if (files.length === 0) return;
    const pinned = files.flatMap((file) => (file.beforeHash === null ? [] : [file.beforeHash]));
    if (pinned.length > 0) await context.store.setBlobPins(pinOwner(context.sessionId, toolUseId), pinned);
    state.files[toolUseId] = { files, toolName };
    return;
  }
  if (Object.keys(state.scanned).length === 0) {
    const baselineStarted = Date.now();
    const baseline = await markScanBaseline(context, { toolName, toolCallId: toolUseId, command: commandOf(event) });
    state.baselineSkipped = baseline.skipped;
    const [last] = await context.store.listCheckpoints(context.sessionId, { last: 1 });
    state.baselineSeq = last?.seq ?? 0;
    state.baselineAt = baselineStarted;
    state.scanTurnId = context.turnId!;
  }
  state.scanned[toolUseId] = { toolName, command: commandOf(event), background: coverage.background === true, posted: false };
}

/**
 * PostToolUse (or PostToolUseFailure). A file tool: a `tool` checkpoint for each file it named,
 * with what the file held at PreToolUse and holds now. A scanned call: once every call in flight
 * has ended, the workspace is scanned and what changed since the baseline becomes `exec`
 * checkpoints of this call. A background command stays in flight until Stop, so what it writes
 * later is still its own.
 */
export async function afterTool(context: CaptureContext, state: HookState, event: ToolHookEvent): Promise<void> {
  const toolUseId = event.tool_use_id ?? '';
  const pending = state.files[toolUseId];
  if (pending) {
    delete state.files[toolUseId];
    for (const file of pending.files) {
      const after = readRegularFile(file.path);
      const before = file.beforeHash === null ? null : await context.blobs.get(file.beforeHash);
      if (before === null && after === null) continue;
      await recordToolChange({
        ...context,
        toolName: pending.toolName,
        toolCallId: toolUseId,
        path: file.path,
        before,
        after: after?.content ?? null,
        beforeMode: file.beforeMode,
        mode: after?.mode ?? file.beforeMode,
      });
    }
    if (pending.files.some((file) => file.beforeHash !== null)) await context.store.setBlobPins(pinOwner(context.sessionId, toolUseId), []);
    // A scan whose calls all ended while this one ran closes now that its change is a checkpoint.
    const last = Object.keys(state.scanned).at(-1);
    if (last !== undefined && !inFlight(state)) await closeScan(context, state, last);
    return;
  }
  const call = state.scanned[toolUseId];
  if (!call) return;
  call.posted = true;
  if (!inFlight(state)) await closeScan(context, state, toolUseId);
}

/**
 * The scan window stays open while any call of the session is running: a scanned call, a
 * background command, or a file tool (its change becomes its own checkpoint at its PostToolUse,
 * and the scan, closed after that, leaves it alone).
 */
function inFlight(state: HookState): boolean {
  return Object.keys(state.files).length > 0 || Object.values(state.scanned).some((other) => !other.posted || other.background);
}

/**
 * Stop: calls still in flight (a call whose PostToolUse never came) end with a final scan. A
 * background command's window stays open past Stop (`final: false`): Claude tells of its end with
 * a task notification, and what it wrote until then is still the prompt's that started it (see
 * {@link closeScanWindow}). `final`: everything closes (the next prompt, the session's end).
 */
export async function closeOpenCalls(context: CaptureContext, state: HookState, options: { final?: boolean } = {}): Promise<void> {
  const ids = Object.keys(state.scanned);
  const background = ids.find((id) => state.scanned[id]!.background);
  if (ids.length > 0 && (background === undefined || options.final)) await closeScan(context, state, background ?? ids[ids.length - 1]!);
  for (const [toolUseId, pending] of Object.entries(state.files)) {
    if (pending.files.some((file) => file.beforeHash !== null)) await context.store.setBlobPins(pinOwner(context.sessionId, toolUseId), []);
  }
  state.files = {};
}

async function closeScan(context: CaptureContext, state: HookState, toolUseId: string): Promise<void> {
  const call = state.scanned[toolUseId]!;
  const options = { toolName: call.toolName, toolCallId: toolUseId, command: call.command };
  const handle = await baselineHandle(context, options, state.baselineSkipped);
  const own = await context.store.listCheckpoints(context.sessionId, { afterSeq: state.baselineSeq });
  const others = await otherSessionsCheckpoints(context, state.baselineAt);
  if (handle === null) await markScanBaseline(context, options);
  else if (own.length === 0 && others.length === 0) await endExec(handle);
  // Checkpoints recorded inside the scan's window — this session's file tools (next to a background
  // command), or another session sharing the directory — explain their paths: the scan leaves those alone.
  else await endTaskCapture({ context, handle, mark: state.baselineSeq }, { stillWanted: async () => true, alsoExplainedBy: others });
  state.scanned = {};
  state.baselineSkipped = [];
}

/** What the other sessions working in this session's directory recorded since `since` (ms). */
async function otherSessionsCheckpoints(context: CaptureContext, since: number): Promise<Checkpoint[]> {
  const session = await context.store.getSession(context.sessionId);
  if (session.workdir === null) return [];
  const found: Checkpoint[] = [];
  for (const other of await context.store.listSessions()) {
    if (other.id === session.id || other.workdir !== session.workdir) continue;
    for (const checkpoint of await context.store.listCheckpoints(other.id, { last: 500 })) if (checkpoint.createdAt >= since) found.push(checkpoint);
  }
  return found;
}

/** Files outside the workspace, in untracked roots or in the store are not the session's to record. */
function isTracked(context: CaptureContext, absolute: string): boolean {
  try {
    return context.workspace.resolve(absolute).tracked;
  } catch {
    return false;
  }
}

function commandOf(event: ToolHookEvent): string | null {
  const command = event.tool_input?.command;
  return typeof command === 'string' ? command : null;
}

function readRegularFile(path: string): { content: Buffer; mode: number } | null {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile()) return null;
    return { content: readFileSync(path), mode: stat.mode & 0o7777 };
  } catch {
    return null;
  }
}

/**
 * Closes a scan window left open past its prompt's Stop by a background command, recording what
 * changed since its baseline as that command's change in the turn that started it. Called when
 * the agent reports the command ended (Claude's task notification), when the next prompt starts,
 * and when the session ends; changes made after that are nobody's until the next scan.
 */
export async function closeScanWindow(open: (turnId: string) => Promise<CaptureContext>, state: HookState): Promise<void> {
  if (Object.keys(state.scanned).length === 0 || state.scanTurnId === undefined) return;
  await closeOpenCalls(await open(state.scanTurnId), state, { final: true });
}
