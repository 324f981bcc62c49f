import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_STEPS, runDemo, type DemoStep } from '../../src/cli/commands/demo.js';
import { main } from '../../src/cli/main.js';
import { SqliteStore } from '../../src/store/index.js';
import { runCli } from './cli-harness.js';

const README = '# kv-parser\n\nParses key=value lines.\n';
const README_AGENT = '# kv-parser\n\nParses key=value lines; empty lines are skipped.\n';
const PERSON_LINE = '\nMaintained by the parser team.\n';
const CHANGELOG = '# Changelog\n\n## 1.0.0\n\n- First release.\n';
const CHANGELOG_AGENT = `${CHANGELOG}\n## 1.0.1\n\n- Empty lines are skipped.\n`;
const FILTER = "filter((line) => line.trim() !== '')";

/** Every file under `root` with its text, relative paths sorted. */
function tree(root: string, dir = root): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(files, tree(root, path));
    else files[relative(root, path)] = readFileSync(path, 'utf8');
  }
  return files;
}

describe('waypoint demo', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-demo-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs an agent session through the runtime and leaves, after each step, the files and store it prints', async () => {
    const lines: string[] = [];
    const project = join(dir, 'project');
    const fork = join(dir, 'project-tokenizer');
    const after = new Map<DemoStep, { project: Record<string, string>; fork: Record<string, string> | null; printed: number }>();
    const result = await runDemo({
      dir,
      print: (line) => lines.push(line),
      onStep: (step) => void after.set(step, { project: tree(project), fork: existsSync(fork) ? tree(fork) : null, printed: lines.length }),
    });
    const output = lines.join('\n');
    expect([...after.keys()]).toEqual([...DEMO_STEPS]);
    /** The lines printed by one step (since the previous one). */
    const printedBy = (step: DemoStep) => lines.slice(after.get(DEMO_STEPS[DEMO_STEPS.indexOf(step) - 1]!)?.printed ?? 0, after.get(step)!.printed).join('\n');

    // Setup: the project, nothing else.
    expect(Object.keys(after.get('setup')!.project)).toEqual(['CHANGELOG.md', 'README.md', 'package.json', 'src/parser.js']);
    expect(output).toContain('model      scripted:demo');

    // Turn 1: the agent's read and edit ran for real (streamed reply, tool calls, change summary).
    const turn1 = printedBy('turn-1');
    expect(turn1).toContain('you> Why does the parser choke on empty lines?');
    expect(turn1).toContain('agent> Let me read the parser first.');
    expect(turn1).toContain('  -> read src/parser.js');
    expect(turn1).toContain('  -> edit src/parser.js');
    expect(turn1).toContain('Edited src/parser.js: 1 replacement.  [1 checkpoint]');
    expect(turn1).toMatch(/turn complete: 1 file changed, \+1 -1 lines\n\s+modify src\/parser\.js\s+\+1 -1/);
    expect(after.get('turn-1')!.project['src/parser.js']).toContain(FILTER);

    // Turn 2: a write, a bash command (its output, the test passing, and the file it changed), an edit.
    const turn2 = printedBy('turn-2');
    expect(turn2).toContain('  -> write test/parser.test.js');
    expect(turn2).toContain('  -> bash $ node test/parser.test.js');
    expect(turn2).toContain('ok - empty lines are skipped');
    expect(turn2).toContain('[exit code 0]  [1 checkpoint]');
    expect(turn2).toMatch(/modify CHANGELOG\.md\s+\+4 -0 {2}\(by a shell command\)/);
    expect(turn2).toMatch(/create test\/parser\.test\.js\s+\+5 -0/);
    expect(turn2).toMatch(/modify README\.md\s+\+1 -1/);
    const afterTurn2 = after.get('turn-2')!.project;
    expect(Object.keys(afterTurn2)).toEqual(['CHANGELOG.md', 'README.md', 'package.json', 'src/parser.js', 'test/parser.test.js']);
    expect(afterTurn2['CHANGELOG.md']).toBe(CHANGELOG_AGENT);
    expect(afterTurn2['README.md']).toBe(README_AGENT);

    // The person's edit.
    expect(after.get('external-edit')!.project['README.md']).toBe(README_AGENT + PERSON_LINE);

    // The preview detects it, offers a clean merge, and changes nothing.
    expect(after.get('undo-preview')!.project).toEqual(after.get('external-edit')!.project);
    expect(result.preview.canApply).toBe(false);
    expect(result.preview.files).toEqual([
      { path: 'README.md', status: 'external_modified', action: 'none', mergeAvailable: true, shell: false },
      { path: 'CHANGELOG.md', status: 'safe', action: 'write', mergeAvailable: false, shell: true },
      { path: 'test/parser.test.js', status: 'safe', action: 'delete', mergeAvailable: false, shell: false },
    ]);
    const preview = printedBy('undo-preview');
    expect(preview).toMatch(/README\.md\s+external_modified\s+blocked until resolved; merge applies cleanly/);
    expect(preview).toMatch(/CHANGELOG\.md\s+safe\s+would be restored; changed by a shell command/);
    expect(preview).toMatch(/test\/parser\.test\.js\s+safe\s+would be deleted/);
    expect(preview).toContain('can apply as is: no (1 file needs a choice: merge or force)');
    // The merge as a diff of the file as it is now: the agent's line back, the person's line untouched, nothing else printed.
    const mergeShown = preview.slice(preview.indexOf('merge would change README.md'));
    expect(mergeShown).toMatch(/^merge would change README\.md as it is now[^\n]*\n {4}@@ [^\n]+@@/);
    expect(mergeShown).toContain('\n    -Parses key=value lines; empty lines are skipped.\n    +Parses key=value lines.\n');
    expect(mergeShown).not.toMatch(/\n {4}[-+]Maintained by the parser team\./);
    expect(mergeShown).not.toContain('    | ');
    expect(printedBy('undo')).toContain('README.md: merged as the preview showed');
    expect(printedBy('undo')).not.toContain('# kv-parser');

    // Applied with the merge: the turn's files are undone, the person's line kept.
    const undone = after.get('undo')!.project;
    expect(Object.keys(undone)).toEqual(['CHANGELOG.md', 'README.md', 'package.json', 'src/parser.js']);
    expect(undone['README.md']).toBe(README + PERSON_LINE);
    expect(undone['CHANGELOG.md']).toBe(CHANGELOG);
    expect(undone['src/parser.js']).toContain(FILTER);
    expect(result.undo.files).toEqual([
      { path: 'README.md', resolution: 'merge', deleted: false },
      { path: 'CHANGELOG.md', resolution: null, deleted: false },
      { path: 'test/parser.test.js', resolution: null, deleted: true },
    ]);
    expect(printedBy('undo')).toMatch(/README\.md\s+rewritten \(merge\)/);

    // Redo: exactly the files as they were before the undo.
    expect(after.get('redo')!.project).toEqual(after.get('external-edit')!.project);
    expect(result.redo.rewindId).not.toBe(result.undo.rewindId);

    // Conversation rewind: the draft back, fewer messages shown, files untouched; redo restores the view.
    expect(result.conversationRewind.draft).toBe('Add a test, run it, note the fix in the changelog, and document the format.');
    expect(result.conversationRewind.visibleAfter).toBeLessThan(result.conversationRewind.visibleBefore);
    expect(result.conversationRewind.visibleAfterRedo).toBe(result.conversationRewind.visibleBefore);
    expect(after.get('conversation-rewind')!.project).toEqual(after.get('redo')!.project);
    expect(printedBy('conversation-rewind')).toContain('files untouched (conversation scope): yes');

    // Stable fork: the parent's files unchanged.
    expect(after.get('stable-fork')!.project).toEqual(after.get('redo')!.project);
    expect(printedBy('stable-fork')).toContain("the parent's files unchanged: yes");

    // Isolated fork: its own directory as the files were after turn 1, the parent's untouched.
    const isolated = after.get('isolated-fork')!;
    expect(isolated.project).toEqual(after.get('redo')!.project);
    expect(isolated.fork).toEqual({
      'CHANGELOG.md': CHANGELOG,
      'README.md': README,
      'package.json': afterTurn2['package.json'],
      'src/parser.js': after.get('turn-1')!.project['src/parser.js'],
    });
    expect(result.forks.isolated.comparison).toEqual([
      { path: 'CHANGELOG.md', state: 'differs' },
      { path: 'README.md', state: 'differs' },
      { path: 'package.json', state: 'same' },
      { path: 'src/parser.js', state: 'same' },
      { path: 'test/parser.test.js', state: 'only-left' },
    ]);
    // A turn in the fork writes in the fork's directory only.
    expect(Object.keys(after.get('isolated-turn')!.fork!)).toContain('src/tokenizer.js');
    expect(after.get('isolated-turn')!.project).toEqual(after.get('redo')!.project);
    expect(printedBy('isolated-turn')).toContain('src/tokenizer.js in the fork: yes; in the parent: no');

    // Side chat: the scripted answer streamed; the main conversation and files unchanged.
    const side = printedBy('side-chat');
    expect(side).toContain('you> Quick question: what does split do with a trailing newline?');
    expect(side).toContain('agent> It yields a final empty string');
    expect(side).toContain("main session's conversation unchanged: yes");
    expect(side).toContain('files untouched: yes');
    expect(after.get('side-chat')!.project).toEqual(after.get('redo')!.project);

    // The log tree holds the main session and its three children, as `waypoint log` renders them.
    const log = printedBy('log');
    expect(result.log[0]).toMatch(new RegExp(`^main  "Demo: fix the parser"  ${result.sessionId}  2 turns, 4 changes  ← here$`));
    expect(result.log.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^├─ fork  "Fork of Demo: fix the parser"  ${result.forks.stable}  at msg_\\w+ \\(#\\d+\\)  0 turns, 0 changes$`)),
      expect.stringMatching(
        new RegExp(`^├─ fork  "Try a streaming tokenizer"  ${result.forks.isolated.sessionId}  at msg_\\w+ \\(#\\d+\\)  1 turn, 1 change$`),
      ),
      expect.stringMatching(new RegExp(`^└─ side_chat  "Selection side chat"  ${result.forks.sideChat}  at msg_\\w+ \\(#\\d+\\)  1 turn, 0 changes$`)),
    ]);
    for (const line of result.log) expect(log).toContain(`  ${line}`);

    // The store agrees: four sessions, and the main session's checkpoints from tools and bash.
    const store = await SqliteStore.open({ path: result.storePath, readOnly: true });
    expect((await store.listSessions()).map((session) => session.kind)).toEqual(['main', 'fork', 'fork', 'side_chat']);
    const checkpoints = await store.listCheckpoints(result.sessionId);
    expect(checkpoints.map((checkpoint) => `${checkpoint.source} ${checkpoint.op} ${checkpoint.path} ${checkpoint.toolName}`)).toEqual([
      'tool modify workspace:src/parser.js edit',
      'tool create workspace:test/parser.test.js write',
      'exec modify workspace:CHANGELOG.md bash',
      'tool modify workspace:README.md edit',
    ]);
    await store.close();
  });

  it('refuses a --dir holding an earlier demo, changing nothing', async () => {
    mkdirSync(join(dir, 'project'));
    writeFileSync(join(dir, 'project', 'keep.txt'), 'mine\n');
    await expect(runDemo({ dir, print: () => undefined })).rejects.toMatchObject({ code: 'DEMO_DIR_IN_USE' });
    expect(tree(dir)).toEqual({ 'project/keep.txt': 'mine\n' });
  });

  it('runs from the built CLI with --json: one JSON document with the result and the printed lines', () => {
    const run = runCli(['demo', '--dir', 'out', '--json'], { home: dir });
    expect(run.code).toBe(0);
    const data = run.json();
    expect(data.storePath).toBe(join(dir, 'out', 'store', 'waypoint.db'));
    expect(data.preview.files.map((file: { status: string }) => file.status)).toEqual(['external_modified', 'safe', 'safe']);
    expect(data.log).toHaveLength(4);
    expect(data.output).toContain('== Redo the undo: the files come back');
    expect(readFileSync(join(dir, 'out', 'project', 'README.md'), 'utf8')).toBe(README_AGENT + PERSON_LINE);
  });

  it('refuses an unknown command with a usage error and exit code 2', async () => {
    expect(await main(['bogus'])).toBe(2);
    expect(await main(['demo', '--dir'])).toBe(2);
  });
});
