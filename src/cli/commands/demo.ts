import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { applyToolEdit, applyToolWrite, captureExec, listRecentCheckpoints, openCaptureContext, summarizeTurn } from '../../checkpoint/index.js';
import { openWaypoint, type Waypoint } from '../../engine/index.js';
import { SessionForker, pinTurnBoundary, renderFamilyTree, sessionFamily } from '../../fork/index.js';
import { inputText, uiView } from '../../history/index.js';
import { redoConversation, rewindConversation } from '../../rewind/index.js';

export interface DemoOptions {
  /** Where the demo's workspace and store go; a fresh temporary directory by default. */
  dir?: string;
  print?: (line: string) => void;
}

export interface DemoResult {
  dir: string;
  storePath: string;
  sessionId: string;
}

const PARSER_BEFORE = `export function parse(text) {
  return text.split('\\n').map((line) => {
    const [key, value] = line.split('=');
    return { key: key.trim(), value: value.trim() };
  });
}
`;

/**
 * `waypoint demo`: a scripted agent session on a fresh workspace and an embedded store, printing
 * what happens — file checkpoints from tool writes, an edit and a shell command; a rewind preview
 * that detects a person's later edit and merges around it; a redo; a conversation rewind that hands
 * the input back; a stable fork, an isolated fork materialized at the fork point, and a side chat;
 * then the session family. Needs no network and no API key.
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'waypoint-demo-'));
  const workdir = join(dir, 'project');
  mkdirSync(join(workdir, 'src'), { recursive: true });
  writeFileSync(join(workdir, 'src', 'parser.js'), PARSER_BEFORE);
  writeFileSync(join(workdir, 'README.md'), '# parser\n\nParses key=value lines.\n');
  const storePath = join(dir, 'store', 'waypoint.db');
  const waypoint = await openWaypoint({ path: storePath });
  try {
    return await story(waypoint, { dir, workdir, storePath, print });
  } finally {
    await waypoint.close();
  }
}

async function story(waypoint: Waypoint, context: { dir: string; workdir: string; storePath: string; print: (line: string) => void }): Promise<DemoResult> {
  const { store, blobs, files, history } = waypoint;
  const { workdir, print } = context;
  const show = (path: string) => readFileSync(join(workdir, path), 'utf8');
  const session = await history.createSession({ title: 'Demo: fix the parser', workdir });
  print(`workspace  ${workdir}`);
  print(`store      ${context.storePath}`);
  print(`session    ${session.id} "${session.title}"`);

  /** One scripted turn: the input, the agent's file work, the reply, the pinned boundary. */
  const turn = async (input: string, work: (capture: Awaited<ReturnType<typeof openCaptureContext>>) => Promise<void>, reply: string) => {
    const user = await history.append(session.id, { role: 'user', parts: [{ type: 'text', text: input }] });
    const record = await store.createTurn({ sessionId: session.id, userMessageId: user.id });
    await work(await openCaptureContext({ store, blobs, sessionId: session.id, turnId: record.id }));
    const answer = await history.append(session.id, { role: 'assistant', turnId: record.id, parts: [{ type: 'text', text: reply }] });
    await store.updateTurn(record.id, { status: 'complete', endedAt: Date.now() });
    await pinTurnBoundary(store, record.id);
    print(`\n> ${input}`);
    const summary = await summarizeTurn(store, blobs, record.id);
    for (const file of summary.files) print(`  ${file.op.padEnd(6)} ${file.displayPath}  +${file.added} -${file.removed}`);
    print(`  ${reply}`);
    return { input: user, reply: answer, turnId: record.id };
  };

  const first = await turn(
    'Why does the parser choke on empty lines?',
    async (capture) => {
      await applyToolEdit(capture, { path: 'src/parser.js', oldString: "  return text.split('\\n').map((line) => {", newString: "  return text.split('\\n').filter((line) => line.trim() !== '').map((line) => {", toolCallId: 'call_1' });
    },
    'An empty line has no "=", so value is undefined; empty lines are now skipped.',
  );
  const second = await turn(
    'Add a test, run it, and document the format.',
    async (capture) => {
      await applyToolWrite(capture, { path: 'test/parser.test.js', content: "import { parse } from '../src/parser.js';\nconsole.log(parse('a=1\\n\\nb=2').length === 2 ? 'ok' : 'fail');\n", toolCallId: 'call_2' });
      await captureExec(capture, () => execFileSync('bash', ['-c', 'printf "ok 1 parser\\n" > test-results.txt'], { cwd: workdir }));
      await applyToolEdit(capture, { path: 'README.md', oldString: 'Parses key=value lines.', newString: 'Parses key=value lines; empty lines are skipped.', toolCallId: 'call_3' });
    },
    'Added test/parser.test.js (it prints ok), ran it, and documented empty lines in README.md.',
  );

  print('\ncheckpoints, newest first (one file mutation each)');
  for (const checkpoint of await listRecentCheckpoints(store, session.id)) {
    print(`  #${checkpoint.seq} ${checkpoint.op.padEnd(6)} ${checkpoint.displayPath.padEnd(20)} by ${checkpoint.source === 'exec' ? 'a shell command' : checkpoint.toolName}`);
  }

  writeFileSync(join(workdir, 'README.md'), `${show('README.md')}\nMaintained by the parser team.\n`);
  print('\na person edits README.md after the agent (adds a line at the end)');
  const preview = await files.preview({ sessionId: session.id, turnId: second.turnId, includeShellChanges: true });
  print('undo the last turn? the preview checks every file against what the agent left:');
  const byShell = new Set(preview.shellChanges.map((change) => change.path));
  for (const file of preview.files) {
    const note = file.mergeAvailable ? ' (merge applies cleanly: keeps the person\'s line)' : byShell.has(file.path) ? ' (made by a shell command; included on request)' : '';
    print(`  ${file.path.replace(/^workspace:/, '').padEnd(20)} ${file.status}${note}`);
  }
  print(`  can apply as is: ${preview.canApply}`);
  const merged = await files.preview({ sessionId: session.id, turnId: second.turnId, includeShellChanges: true, resolutions: { 'workspace:README.md': 'merge' } });
  const undone = await files.apply(merged);
  print(`applied with README.md merged: ${undone.files.length} files restored`);
  print(`  README.md now: ${JSON.stringify(show('README.md'))}`);
  print(`  test/parser.test.js exists: ${readdirSync(workdir).includes('test') && readdirSync(join(workdir, 'test')).length > 0}`);

  await files.redo(session.id, undone.rewindId!);
  print(`redo: the turn's files are back (test file present: ${readdirSync(join(workdir, 'test')).includes('parser.test.js')})`);
  print(`  README.md now: ${JSON.stringify(show('README.md'))}`);

  const rewound = await rewindConversation(store, { sessionId: session.id, messageId: second.input.id, tasks: waypoint.tasks });
  print(`\nconversation rewind to before "${inputText(second.input)}"`);
  print(`  the input comes back for editing: ${JSON.stringify(rewound.draft)}`);
  print(`  visible history: ${(uiView(await store.history(session.id))).length} messages; nothing deleted from the store`);
  await redoConversation(store, session.id);
  print(`  redo: ${(await store.history(session.id)).length} messages again`);

  const forker = new SessionForker({ store, blobs });
  const stable = await forker.fork({ from: 'stable', sessionId: session.id, messageId: first.reply.id });
  print(`\nstable fork at the first reply: ${stable.session.id} "${stable.session.title}" (files untouched)`);
  const isolatedDir = join(context.dir, 'project-alternative');
  const isolated = await forker.fork({ from: 'message', sessionId: session.id, messageId: first.reply.id, title: 'Try a streaming tokenizer', workspace: { mode: 'isolated', dir: isolatedDir } });
  print(`isolated fork: ${isolated.session.id} works in ${relative(context.dir, isolatedDir)}/, materialized at the fork point:`);
  print(`  ${listFiles(isolatedDir).join(', ')} (no test yet: it came after the fork point)`);
  print(`  the parent's workspace still has: ${listFiles(workdir).join(', ')}`);
  const side = await forker.fork({ from: 'side-chat', sessionId: session.id, question: 'What does split do with a trailing newline?' });
  const sideHistory = await store.history(side.session.id);
  print(`side chat: ${side.session.id} "${side.session.title}" — the model sees ${sideHistory.length} messages, the person sees ${uiView(sideHistory, { startAfter: side.session.forkedFromMessageId }).length}`);

  print('\nsession family');
  for (const line of renderFamilyTree(await sessionFamily(store, session.id), { mark: session.id }).split('\n')) print(`  ${line}`);
  const stats = await store.blobs.stats();
  print(`\nblob store: ${stats.blobCount} blobs, ${(stats.rawBytes / 1024).toFixed(1)} KiB of content in ${(stats.storedBytes / 1024).toFixed(1)} KiB`);
  return { dir: context.dir, storePath: context.storePath, sessionId: session.id };
}

function listFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(root, join(dir, entry.name)) : [relative(root, join(dir, entry.name))]))
    .sort();
}
