import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { displayPath } from '../../checkpoint/index.js';
import { openWaypoint, storeLabel, type Waypoint } from '../../engine/index.js';
import { modelView, uiView } from '../../history/index.js';
import { ConflictError, WaypointError } from '../../model/index.js';
import type { FileRewindPreview, FileRewindStatus, PreviewFile, RewoundFile } from '../../rewind/index.js';
import { createRuntime, ScriptedModel, type AgentRuntime, type TurnResult } from '../../runtime/index.js';
import { compareTrees, listFiles, sameSnapshot, showFile, snapshot, writeProject, type FileComparison } from './demo/files.js';
import { Narrator } from './demo/narrator.js';
import { DEMO_PROJECT, DEMO_TURNS, FIX_TURN, SIDE_TURN, TEST_TURN, TOKENIZER_TURN, type DemoTurn } from './demo/script.js';
import { renderLog, sessionLog } from './log.js';
import { mergeDiffLines } from '../render/rewind-render.js';

/** The demo's steps, in order; `onStep` is called after each. */
export const DEMO_STEPS = [
  'setup',
  'turn-1',
  'turn-2',
  'external-edit',
  'undo-preview',
  'undo',
  'redo',
  'conversation-rewind',
  'conversation-redo',
  'stable-fork',
  'isolated-fork',
  'isolated-turn',
  'side-chat',
  'log',
] as const;
export type DemoStep = (typeof DEMO_STEPS)[number];

export interface DemoOptions {
  /** Where the demo's workspace and store go (new or empty); a fresh temporary directory by default. */
  dir?: string;
  print?: (line: string) => void;
  /** Called after each step, before the next starts (the files on disk are as that step left them). */
  onStep?: (step: DemoStep) => void | Promise<void>;
  /** The store to record in (a file or a `postgres://` URL); default a new file in `dir`. */
  store?: string;
}

export interface DemoResult {
  dir: string;
  /** The main session's workspace. */
  workdir: string;
  storePath: string;
  /** The main session. */
  sessionId: string;
  model: string;
  turns: Array<{ sessionId: string; turnId: string; input: string; status: string; reply: string; files: Array<{ path: string; op: string }> }>;
  /** The undo of turn 2 before any choice: each file's status. */
  preview: {
    canApply: boolean;
    blockers: string[];
    files: Array<{ path: string; status: FileRewindStatus; action: PreviewFile['action']; mergeAvailable: boolean; shell: boolean }>;
  };
  undo: { rewindId: string | null; files: Array<{ path: string; resolution: string | null; deleted: boolean }> };
  redo: { rewindId: string | null; files: string[] };
  conversationRewind: { draft: string; visibleBefore: number; visibleAfter: number; visibleAfterRedo: number };
  forks: { stable: string; isolated: { sessionId: string; dir: string; comparison: Array<{ path: string; state: FileComparison }> }; sideChat: string };
  /** The family tree, as `waypoint log` prints it. */
  log: string[];
}

/**
 * `waypoint demo`: a real agent session, run by the runtime with a scripted model (no network, no
 * API key), in a fresh workspace with its own store. The agent reads, writes and edits files with its
 * tools and changes one through bash (caught by the workspace scan); then a person edits a file the
 * agent changed, the undo of the last turn is previewed (the edit shows as `external_modified`,
 * merge available) and applied with a merge; a redo brings the files back; a conversation rewind
 * gives the input back; a stable fork, an isolated fork (its own directory, materialized at the fork
 * point, where a turn runs) and a side chat follow; last, the family tree as `waypoint log` shows it.
 * Everything printed is read back from the runtime's events, the engine's results or the disk.
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'waypoint-demo-'));
  const paths = {
    dir,
    workdir: join(dir, 'project'),
    isolatedDir: join(dir, 'project-tokenizer'),
    storePath: options.store ?? join(dir, 'store', 'waypoint.db'),
  };
  const taken = [paths.workdir, paths.isolatedDir, join(dir, 'store')].filter((path) => existsSync(path) && readdirSync(path).length > 0);
  if (taken.length > 0) {
    throw new ConflictError({
      code: 'DEMO_DIR_IN_USE',
      message: `The demo directory ${dir} already holds ${taken.map((path) => relative(dir, path)).join(', ')} (an earlier demo?). Give a new or empty directory with --dir; nothing was changed.`,
      details: { dir, taken },
    });
  }
  writeProject(paths.workdir, DEMO_PROJECT);
  mkdirSync(join(dir, 'store'), { recursive: true });
  const waypoint = await openWaypoint({ path: paths.storePath });
  const model = ScriptedModel.fromSteps(
    DEMO_TURNS.flatMap((turn) => turn.steps),
    'demo',
  );
  const runtime = createRuntime({ waypoint, model });
  const detach = new Narrator(print).attach(runtime.events);
  try {
    return await story({ waypoint, runtime, print, onStep: options.onStep ?? (() => undefined), ...paths });
  } finally {
    detach();
    await runtime.close();
    await waypoint.close();
  }
}

interface StoryContext {
  waypoint: Waypoint;
  runtime: AgentRuntime;
  print: (line: string) => void;
  onStep: (step: DemoStep) => void | Promise<void>;
  dir: string;
  workdir: string;
  isolatedDir: string;
  storePath: string;
}

async function story(context: StoryContext): Promise<DemoResult> {
  const { waypoint, runtime, print, workdir } = context;
  const { store, files } = waypoint;
  const section = (title: string) => {
    print('');
    print(`== ${title}`);
  };

  const session = await runtime.startSession({ workdir, title: 'Demo: fix the parser' });
  print('Waypoint demo: a scripted agent session in a fresh workspace, with its own store.');
  print(`workspace  ${workdir}`);
  print(`store      ${storeLabel(context.storePath)}`);
  print(`model      ${runtime.modelLabel} (replies and tool calls played from a script; the tools run for real; no network, no API key)`);
  print(`session    ${session.id} "${session.title}"`);
  print(`files      ${listFiles(workdir).join(', ')}`);
  await context.onStep('setup');

  const turns: DemoResult['turns'] = [];
  const turn = async (sessionId: string, script: DemoTurn): Promise<TurnResult> => {
    const result = await runtime.runTurn(sessionId, script.input);
    if (result.status !== 'complete' || result.steps !== script.steps.length) {
      throw new WaypointError({
        code: 'DEMO_OUT_OF_STEP',
        message: `The demo's turn "${script.input}" ended ${result.status} after ${result.steps} model calls instead of completing after ${script.steps.length}; the demo stops here.`,
        details: { sessionId, turnId: result.turn.id, status: result.status, steps: result.steps },
      });
    }
    turns.push({
      sessionId,
      turnId: result.turn.id,
      input: script.input,
      status: result.status,
      reply: result.text,
      files: result.summary.files.map((file) => ({ path: file.displayPath, op: file.op })),
    });
    return result;
  };

  section('Turn 1: the agent reads the parser and fixes it with its edit tool');
  const first = await turn(session.id, FIX_TURN);
  await context.onStep('turn-1');

  section('Turn 2: a new file (write), a shell command that changes a file (bash), an edit');
  const second = await turn(session.id, TEST_TURN);
  print(`workspace now: ${listFiles(workdir).join(', ')}`);
  await context.onStep('turn-2');

  section('A person edits a file the agent changed');
  const readme = join(workdir, 'README.md');
  writeFileSync(readme, `${readFileSync(readme, 'utf8')}\nMaintained by the parser team.\n`);
  print('README.md, with a line added at the end by hand:');
  for (const line of showFile(workdir, 'README.md')) print(line);
  await context.onStep('external-edit');

  section('Undo turn 2: preview first (the files are checked against what the agent left; nothing changes yet)');
  const preview = await files.preview({ sessionId: session.id, turnId: second.turn.id, includeShellChanges: true });
  for (const line of previewLines(preview)) print(line);
  await context.onStep('undo-preview');

  const resolutions = Object.fromEntries(
    preview.files.filter((file) => file.status === 'external_modified' && file.mergeAvailable).map((file) => [file.path, 'merge' as const]),
  );
  const unresolved = preview.files.filter((file) => file.status !== 'safe' && !(file.path in resolutions));
  if (unresolved.length > 0 || Object.keys(resolutions).length === 0) {
    throw new WaypointError({
      code: 'DEMO_OUT_OF_STEP',
      message: `The demo expected the person's edit to be detected with a clean merge available, but the preview says: ${preview.blockers.join(' ') || 'no conflict'}; the demo stops here.`,
      details: { files: preview.files.map((file) => ({ path: file.path, status: file.status, mergeAvailable: file.mergeAvailable })) },
    });
  }
  const merged = Object.keys(resolutions).map(displayPath);
  section(`Apply the undo, choosing merge for ${merged.join(', ')}`);
  const undone = await files.apply(await files.preview({ sessionId: session.id, turnId: second.turn.id, includeShellChanges: true, resolutions }));
  print(`rewind ${undone.rewindId}: ${undone.files.length} ${undone.files.length === 1 ? 'file' : 'files'} changed`);
  for (const file of undone.files) print(`  ${displayPath(file.path).padEnd(22)} ${rewoundAs(file)}`);
  print(`workspace now: ${listFiles(workdir).join(', ')}`);
  for (const path of merged) print(`${path}: merged as the preview showed (the hand-written line kept)`);
  await context.onStep('undo');

  section('Redo the undo: the files come back');
  const redone = await files.redo(session.id, undone.rewindId!);
  print(`rewind ${redone.rewindId} (a redo of ${undone.rewindId}): ${redone.files.length} ${redone.files.length === 1 ? 'file' : 'files'} changed`);
  for (const file of redone.files) print(`  ${displayPath(file.path).padEnd(22)} ${rewoundAs(file)}`);
  print(`workspace now: ${listFiles(workdir).join(', ')}`);
  print('README.md now:');
  for (const line of showFile(workdir, 'README.md')) print(line);
  await context.onStep('redo');

  section("Rewind the conversation to before turn 2's input");
  const visibleBefore = await visibleCount(waypoint, session.id);
  const filesBeforeRewind = snapshot(workdir);
  const rewound = await runtime.rewind({ sessionId: session.id, messageId: second.turn.userMessageId, scope: 'conversation' });
  const visibleAfter = await visibleCount(waypoint, session.id);
  const draft = rewound.conversation?.draft ?? '';
  print(`the input comes back as a draft to edit and resend: ${JSON.stringify(draft)}`);
  print(
    `the person now sees ${visibleAfter} of ${visibleBefore} messages; turn 2's reply is still in the store: ${yes((await store.findMessage(second.finalMessageId!)) !== null)}`,
  );
  print(`files untouched (conversation scope): ${yes(sameSnapshot(filesBeforeRewind, snapshot(workdir)))}`);
  await context.onStep('conversation-rewind');
  await runtime.redo(session.id);
  const visibleAfterRedo = await visibleCount(waypoint, session.id);
  print(`redo: the head moves forward again, ${visibleAfterRedo} messages`);
  await context.onStep('conversation-redo');

  section("Stable fork at turn 2's final reply (the fork button)");
  const beforeStable = snapshot(workdir);
  const stable = await runtime.fork({ from: 'stable', sessionId: session.id, messageId: second.finalMessageId! });
  const shared = ((await store.findMessage(stable.session.forkedFromMessageId!))?.depth ?? -1) + 1;
  print(
    `${stable.session.kind} ${stable.session.id} "${stable.session.title}": ${stable.strategy} workspace; shares the parent's first ${shared} messages (not copied)`,
  );
  print(`the parent's files unchanged: ${yes(sameSnapshot(beforeStable, snapshot(workdir)))}`);
  await context.onStep('stable-fork');

  section("Isolated fork at turn 1's reply: its own directory, materialized at the fork point");
  const isolated = await runtime.fork({
    from: 'message',
    sessionId: session.id,
    messageId: first.finalMessageId!,
    title: 'Try a streaming tokenizer',
    workspace: { mode: 'isolated', dir: context.isolatedDir },
  });
  const materialized = isolated.materialized!;
  print(`${isolated.session.kind} ${isolated.session.id} "${isolated.session.title}" works in ${relative(context.dir, materialized.dir)}/`);
  print(
    `${materialized.files} files written${materialized.restored.length > 0 ? `; ${materialized.restored.map(displayPath).join(', ')} taken from the blob store as they were at the fork point` : ''}`,
  );
  const comparison = compareTrees(workdir, materialized.dir);
  print(`compared with the parent's ${relative(context.dir, workdir)}/:`);
  for (const file of comparison) print(`  ${file.path.padEnd(22)} ${COMPARISON[file.state]}`);
  await context.onStep('isolated-fork');
  print('');
  await turn(isolated.session.id, TOKENIZER_TURN);
  print(
    `src/tokenizer.js in the fork: ${yes(existsSync(join(materialized.dir, 'src', 'tokenizer.js')))}; in the parent: ${yes(existsSync(join(workdir, 'src', 'tokenizer.js')))}`,
  );
  await context.onStep('isolated-turn');

  section('A side chat: a question on the side, without touching the main conversation');
  const mainHead = (await store.getSession(session.id)).headMessageId;
  const beforeSide = snapshot(workdir);
  const side = await runtime.side(session.id, SIDE_TURN.input);
  if (side.turn.status !== 'complete' || side.turn.steps !== SIDE_TURN.steps.length)
    throw new WaypointError({
      code: 'DEMO_OUT_OF_STEP',
      message: `The side chat ended ${side.turn.status}; the demo stops here.`,
      details: { sessionId: side.session.id },
    });
  turns.push({ sessionId: side.session.id, turnId: side.turn.turn.id, input: SIDE_TURN.input, status: side.turn.status, reply: side.turn.text, files: [] });
  const sideHistory = await store.history(side.session.id);
  const inherited = ((await store.findMessage(side.session.forkedFromMessageId!))?.depth ?? -1) + 1;
  const seen = uiView(sideHistory, { startAfter: side.session.forkedFromMessageId }).length;
  print(`${side.session.kind} ${side.session.id} "${side.session.title}": files untouched: ${yes(sameSnapshot(beforeSide, snapshot(workdir)))}`);
  print(
    `the model sees ${modelView(sideHistory).length} messages: the main conversation's first ${inherited}, then the side chat's; the person sees only the side chat's ${seen}`,
  );
  print(`main session's conversation unchanged: ${yes((await store.getSession(session.id)).headMessageId === mainHead)}`);
  await context.onStep('side-chat');

  section(`The session family, as \`waypoint log ${session.id}\` prints it`);
  const log = renderLog(await sessionLog(waypoint, session.id));
  for (const line of log) print(`  ${line}`);
  const stats = await store.blobs.stats();
  print('');
  print(`blob store: ${stats.blobCount} blobs, ${(stats.rawBytes / 1024).toFixed(1)} KiB of content in ${(stats.storedBytes / 1024).toFixed(1)} KiB`);
  await context.onStep('log');

  return {
    dir: context.dir,
    workdir,
    storePath: storeLabel(context.storePath),
    sessionId: session.id,
    model: runtime.modelLabel,
    turns,
    preview: {
      canApply: preview.canApply,
      blockers: preview.blockers,
      files: preview.files.map((file) => ({
        path: displayPath(file.path),
        status: file.status,
        action: file.action,
        mergeAvailable: file.mergeAvailable,
        shell: isShell(preview, file),
      })),
    },
    undo: {
      rewindId: undone.rewindId,
      files: undone.files.map((file) => ({ path: displayPath(file.path), resolution: file.resolution, deleted: file.toHash === null })),
    },
    redo: { rewindId: redone.rewindId, files: redone.files.map((file) => displayPath(file.path)) },
    conversationRewind: { draft, visibleBefore, visibleAfter, visibleAfterRedo },
    forks: { stable: stable.session.id, isolated: { sessionId: isolated.session.id, dir: materialized.dir, comparison }, sideChat: side.session.id },
    log,
  };
}

const ACTIONS: Record<PreviewFile['action'], (file: PreviewFile) => string> = {
  write: () => 'would be restored',
  delete: () => 'would be deleted',
  move: (file) => `would move back from ${displayPath(file.movedFrom ?? '')}`,
  none: () => 'already as it was',
};

const COMPARISON: Record<FileComparison, string> = { same: 'same', differs: 'differs', 'only-left': 'only in the parent', 'only-right': 'only in the fork' };

/** The preview, a file a line: its status, what applying would do, and why a file is not safe. */
function previewLines(preview: FileRewindPreview): string[] {
  const lines: string[] = [];
  for (const file of preview.files) {
    const action = file.status !== 'safe' && file.resolution === null ? 'blocked until resolved' : ACTIONS[file.action](file);
    const notes = [action, ...(isShell(preview, file) ? ['changed by a shell command'] : []), ...(file.mergeAvailable ? ['merge applies cleanly'] : [])];
    lines.push(`  ${displayPath(file.path).padEnd(22)} ${file.status.padEnd(18)} ${notes.join('; ')}`);
    if (file.reason) lines.push(`  ${''.padEnd(22)} ${file.reason}`);
  }
  // Per-file blockers are the lines above; anything else is said as the engine put it.
  const other = preview.blockers.filter((blocker) => !preview.files.some((file) => blocker.startsWith(`${file.path}:`)));
  const blocked = preview.files.filter((file) => file.status !== 'safe' && file.resolution === null).length;
  const why = [...(blocked > 0 ? [`${blocked} ${blocked === 1 ? 'file needs' : 'files need'} a choice: merge or force`] : []), ...other];
  lines.push(`can apply as is: ${yes(preview.canApply)}${why.length > 0 ? ` (${why.join('; ')})` : ''}`);
  for (const file of preview.files.filter((candidate) => candidate.mergedText !== null)) {
    lines.push(`merge would change ${displayPath(file.path)} as it is now (the agent's change undone, the later edit kept):`);
    lines.push(...mergeDiffLines(file, '    '));
  }
  return lines;
}

function isShell(preview: FileRewindPreview, file: PreviewFile): boolean {
  return preview.shellChanges.some((change) => change.path === file.path || change.toPath === file.path);
}

function rewoundAs(file: RewoundFile): string {
  const what = file.toHash === null ? 'deleted' : file.fromHash === null ? 'created again' : 'rewritten';
  return file.resolution ? `${what} (${file.resolution})` : what;
}

async function visibleCount(waypoint: Waypoint, sessionId: string): Promise<number> {
  return uiView(await waypoint.store.history(sessionId)).length;
}

function yes(value: boolean): string {
  return value ? 'yes' : 'no';
}
