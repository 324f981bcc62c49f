import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliFixture, inspect, PARSER, runCli, snapshotTree, type CliFixture } from './cli-harness.js';

const README_BEFORE = '# parser\n\nParses key=value lines.\n';
const README_AFTER = '# parser\n\nParses key=value lines; empty lines are skipped.\n';

describe('waypoint fork (built CLI)', () => {
  let fixture: CliFixture;
  beforeEach(async () => {
    fixture = await createCliFixture();
  });
  afterEach(() => fixture.cleanup());

  it('a shared-workspace fork that changes files prints the preview and needs --yes; nothing changes without it', () => {
    const before = snapshotTree(fixture.dir);
    const refused = fixture.cli('fork', fixture.sessionId);
    expect(refused.code).toBe(4);
    expect(refused.stdout).toContain(`Fork of ${fixture.sessionId} from checkpoint, shared workspace, history up to ${fixture.first.replyId}`);
    expect(refused.stdout).toMatch(/README\.md\s+safe\s+write/);
    expect(refused.stderr).toContain('Run it again with --yes');
    const json = fixture.cli('fork', fixture.sessionId, 'latest', '--json');
    expect(json.code).toBe(4);
    expect(json.json().error).toMatchObject({
      code: 'FORK_NEEDS_CONFIRMATION',
      details: { sessionId: fixture.sessionId, files: [{ path: 'workspace:README.md', action: 'write', status: 'safe' }] },
    });
    expect(snapshotTree(fixture.dir)).toEqual(before);
  });

  it("--yes forks from the latest checkpoint: the child is created and the parent's file rewound; redo on the parent brings it back", async () => {
    const run = fixture.cli('fork', fixture.sessionId, '--yes', '--json');
    expect(run.code).toBe(0);
    const report = run.json();
    expect(report).toMatchObject({
      type: 'fork',
      created: true,
      from: 'checkpoint',
      strategy: 'shared',
      at: fixture.first.replyId,
      parentSessionId: fixture.sessionId,
      session: { kind: 'fork', title: 'Fork of Parser work', parentSessionId: fixture.sessionId },
      workdir: fixture.project,
    });
    expect(fixture.read('README.md')).toBe(README_BEFORE);
    expect(fixture.cli('redo', fixture.sessionId, report.fileRewind.rewindId).code).toBe(0);
    expect(fixture.read('README.md')).toBe(README_AFTER);
    const log = fixture.cli('log', report.session.id);
    expect(log.stdout).toContain(`└─ fork  "Fork of Parser work"  ${report.session.id}  at ${fixture.first.replyId} (#2)  0 turns, 0 changes  ← here`);
    const inherited = await inspect(fixture, async (waypoint) => (await waypoint.store.history(report.session.id)).map((message) => message.id));
    expect(inherited.slice(0, 2)).toEqual([fixture.first.inputId, fixture.first.replyId]);
    expect(inherited).not.toContain(fixture.second.inputId);
  });

  it('continue --from-store: the files at the message built from the store alone in a new directory, the parent untouched; a missing --dir is refused', () => {
    const before = snapshotTree(fixture.project);
    const dir = join(fixture.dir, 'elsewhere');
    const run = fixture.cli('continue', fixture.sessionId, '--dir', dir, '--at', fixture.first.replyId, '--from-store', '--json');
    expect(run.code, run.stderr).toBe(0);
    const report = run.json();
    expect(report).toMatchObject({ type: 'fork', created: true, at: fixture.first.replyId, parentSessionId: fixture.sessionId, workdir: dir });
    expect(report.materialized.fromStore).toBeDefined();
    // The second turn's README change is undone in the copy: the version the store holds from before it.
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe(README_BEFORE);
    expect(snapshotTree(fixture.project)).toEqual(before);
    const refused = fixture.cli('continue', fixture.sessionId, '--json');
    expect(refused.code).not.toBe(0);
    expect(refused.json().error.code).toBe('USAGE');
    expect(snapshotTree(fixture.project)).toEqual(before);
  });

  it('<checkpointId> --isolated <dir>: materialized at the fork point, parent untouched, progress as plain lines', () => {
    const before = snapshotTree(fixture.project);
    const dir = join(fixture.dir, 'alt');
    const run = fixture.cli('fork', fixture.sessionId, fixture.checkpointIds[0]!, '--isolated', dir, '--title', 'Try a tokenizer');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"Try a tokenizer" (fork, from checkpoint, isolated workspace)');
    expect(run.stdout).toContain(`workspace: ${dir}`);
    expect(run.stderr).toMatch(/^materializing: \d+\/\d+$/m);
    expect(run.stderr).toContain('materializing: 2 files written');
    expect(readFileSync(join(dir, 'src', 'parser.js'), 'utf8')).toBe(PARSER);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe(README_BEFORE);
    expect(existsSync(join(dir, 'assets'))).toBe(false);
    expect(snapshotTree(fixture.project)).toEqual(before);
  });

  it('--isolated with no dir goes beside the workdir; a relative dir resolves from the current directory', () => {
    const run = fixture.cli('fork', fixture.sessionId, '--message', fixture.first.replyId, '--isolated', '--json');
    expect(run.code).toBe(0);
    const report = run.json();
    expect(report.materialized.dir).toBe(`${fixture.project}.forks/${report.session.id}`);
    expect(readFileSync(join(report.materialized.dir, 'README.md'), 'utf8')).toBe(README_BEFORE);
    const relative = runCli(['fork', fixture.sessionId, '--stable', fixture.first.replyId, '--isolated', './here', '--json'], {
      home: fixture.home,
      cwd: fixture.dir,
    });
    expect(relative.code).toBe(0);
    expect(relative.json().workdir).toBe(join(fixture.dir, 'here'));
  });

  it('in a git project, --isolated makes a detached work tree at HEAD with the fork-point changes on top; --ignored and the report in text and --json', () => {
    const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });
    writeFileSync(join(fixture.project, '.gitignore'), 'node_modules/\n');
    mkdirSync(join(fixture.project, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(fixture.project, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
    git(fixture.project, 'init', '--quiet');
    git(fixture.project, 'add', '-A');
    git(fixture.project, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'after both turns');
    const head = git(fixture.project, 'rev-parse', 'HEAD').trim();

    const linked = join(fixture.dir, 'linked');
    const run = fixture.cli('fork', fixture.sessionId, '--message', fixture.first.replyId, '--isolated', linked, '--ignored', 'link', '--json');
    expect(run.code).toBe(0);
    const report = run.json().materialized;
    expect(report).toMatchObject({
      dir: linked,
      git: { worktree: linked, commit: head, index: 'copied' },
      gitSkipped: null,
      ignoredMode: 'link',
      ignored: [{ path: 'node_modules/', action: 'link', files: 1 }],
      notCopied: [],
    });
    expect(readlinkSync(join(linked, 'node_modules', 'dep'))).toBe(join(fixture.project, 'node_modules', 'dep'));
    // The changes after the fork point are undone on top of HEAD, which has them committed.
    expect(git(linked, 'status', '--porcelain')).toBe(' M README.md\n D test-results.txt\n D test/parser.test.js\n');

    const text = fixture.cli('fork', fixture.sessionId, '--message', fixture.first.replyId, '--isolated', join(fixture.dir, 'omitted'), '--ignored', 'omit');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`git: a linked work tree, detached at ${head.slice(0, 12)}`);
    expect(text.stdout).toContain(`git worktree remove ${join(fixture.dir, 'omitted')}`);
    expect(text.stdout).toContain('ignored paths (--ignored omit):\n    node_modules/ left out');
    expect(existsSync(join(fixture.dir, 'omitted', 'node_modules'))).toBe(false);
  });

  it('fork discard deletes an isolated fork and its work tree registration; content recorded nowhere refuses it unless --force', () => {
    const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });
    git(fixture.project, 'init', '--quiet');
    git(fixture.project, 'add', '-A');
    git(fixture.project, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'after both turns');
    const fork = (name: string) => {
      const run = fixture.cli('fork', fixture.sessionId, '--message', fixture.first.replyId, '--isolated', join(fixture.dir, name), '--json');
      expect(run.code).toBe(0);
      return run.json().session.id as string;
    };
    const registered = () => git(fixture.project, 'worktree', 'list', '--porcelain');

    // Only what the store or HEAD holds: README.md restored from the store, deletions, HEAD's files.
    const clean = fork('clean');
    expect(registered()).toContain(join(fixture.dir, 'clean'));
    const done = fixture.cli('fork', 'discard', clean, '--json');
    expect(done.code).toBe(0);
    expect(done.json()).toEqual({ sessionId: clean, removed: [join(fixture.dir, 'clean')], missing: [], unrecorded: [] });
    expect(existsSync(join(fixture.dir, 'clean'))).toBe(false);
    expect(registered()).not.toContain(join(fixture.dir, 'clean'));
    expect(fixture.cli('show', clean).code).toBe(0);

    const busy = fork('busy');
    writeFileSync(join(fixture.dir, 'busy', 'scratch.txt'), 'typed in the fork, never recorded\n');
    writeFileSync(join(fixture.dir, 'busy', 'src', 'parser.js'), 'edited by hand\n');
    const refused = fixture.cli('fork', 'discard', busy, '--json');
    expect(refused.code).toBe(4);
    expect(refused.json().error).toMatchObject({
      code: 'FORK_HAS_UNRECORDED_CHANGES',
      details: { sessionId: busy, paths: ['workspace:scratch.txt', 'workspace:src/parser.js'] },
    });
    expect(readFileSync(join(fixture.dir, 'busy', 'scratch.txt'), 'utf8')).toContain('never recorded');
    expect(registered()).toContain(join(fixture.dir, 'busy'));
    const text = fixture.cli('fork', 'discard', busy);
    expect(text.stderr).toContain('run it again with --force');
    const forced = fixture.cli('fork', 'discard', busy, '--force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('deleted with --force, recorded nowhere: scratch.txt, src/parser.js');
    expect(existsSync(join(fixture.dir, 'busy'))).toBe(false);
    expect(registered()).not.toContain(join(fixture.dir, 'busy'));

    const main = fixture.cli('fork', 'discard', fixture.sessionId, '--json');
    expect(main.code).toBe(2);
    expect(main.json().error.code).toBe('NOT_AN_ISOLATED_FORK');
    expect(fixture.cli('fork', fixture.sessionId, '--force').code).toBe(2);
  }, 600_000);

  it('--stable and --side never touch files and need no confirmation', () => {
    const before = snapshotTree(fixture.project);
    const stable = fixture.cli('fork', fixture.sessionId, '--stable', fixture.first.replyId, '--json');
    expect(stable.code).toBe(0);
    expect(stable.json()).toMatchObject({ from: 'stable', strategy: 'shared', at: fixture.first.replyId, fileRewind: null });
    const side = fixture.cli('fork', fixture.sessionId, '--side', 'What does split do with a trailing newline?', '--json');
    expect(side.code).toBe(0);
    expect(side.json()).toMatchObject({ from: 'side-chat', session: { kind: 'side_chat', title: 'Selection side chat' } });
    expect(snapshotTree(fixture.project)).toEqual(before);
    expect(
      fixture
        .cli('sessions', '--json')
        .json()
        .sessions.map((session: { kind: string }) => session.kind),
    ).toEqual(['main', 'fork', 'side_chat']);
  });

  it('--message <id> in the shared workspace undoes only the changes after it (with --yes)', () => {
    const run = fixture.cli('fork', fixture.sessionId, '--message', fixture.first.replyId, '--yes', '--json');
    expect(run.code).toBe(0);
    expect(run.json().fileRewind.checkpointIds).toHaveLength(3);
    expect(fixture.read('README.md')).toBe(README_BEFORE);
    expect(existsSync(join(fixture.project, 'test', 'parser.test.js'))).toBe(false);
    expect(fixture.read('src/parser.js')).not.toBe(PARSER);
  });

  it('--preview shows the fork without doing it', () => {
    const before = snapshotTree(fixture.dir);
    const run = fixture.cli('fork', fixture.sessionId, '--message', fixture.first.replyId, '--preview', '--json');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ type: 'preview', preview: { from: 'message', requiresConfirmation: true, at: fixture.first.replyId } });
    expect(snapshotTree(fixture.dir)).toEqual(before);
  });

  describe('bad input gives the typed error and changes nothing', () => {
    const cases: Array<[string, (f: CliFixture) => string[], number, string]> = [
      ['unknown session', () => ['fork', 'ses_00000000000000000000000000', '--yes'], 3, 'SESSION_NOT_FOUND'],
      ['unknown checkpoint', (f) => ['fork', f.sessionId, 'chk_00000000000000000000000000', '--yes'], 3, 'CHECKPOINT_NOT_FOUND'],
      ['two fork points', (f) => ['fork', f.sessionId, '--stable', f.first.replyId, '--side', 'why?'], 2, 'USAGE'],
      ['a message given as the checkpoint', (f) => ['fork', f.sessionId, f.first.inputId], 2, 'USAGE'],
      ['a stable fork at a user input', (f) => ['fork', f.sessionId, '--stable', f.first.inputId], 2, 'NOT_A_STABLE_BOUNDARY'],
      ['--message without a value', (f) => ['fork', f.sessionId, '--message'], 2, 'USAGE'],
      ['--ignored with an unknown mode', (f) => ['fork', f.sessionId, '--isolated', '--ignored', 'share'], 2, 'USAGE'],
      ['--ignored without --isolated', (f) => ['fork', f.sessionId, '--ignored', 'omit'], 2, 'USAGE'],
    ];
    for (const [name, args, exitCode, code] of cases) {
      it(name, () => {
        const before = snapshotTree(fixture.dir);
        const run = fixture.cli(...args(fixture), '--json');
        expect(run.code).toBe(exitCode);
        expect(run.json().error.code).toBe(code);
        expect(snapshotTree(fixture.dir)).toEqual(before);
      });
    }

    it('a missing workspace refuses a file-changing fork; an isolated fork then builds its directory from the store and says so', () => {
      renameSync(fixture.project, `${fixture.project}-moved`);
      const before = snapshotTree(fixture.dir);
      const run = fixture.cli('fork', fixture.sessionId, '--yes', '--json');
      expect(run.code).toBe(4);
      expect(run.json().error.code).toBe('WORKSPACE_MISSING');
      expect(snapshotTree(fixture.dir)).toEqual(before);
      const isolated = fixture.cli('fork', fixture.sessionId, '--isolated', join(fixture.dir, 'alt'));
      expect(isolated.code).toBe(0);
      expect(isolated.stdout).toContain("built from the store: the parent's directory is not reachable here");
      expect(isolated.stdout).toContain('not in the store: ignored paths');
      expect(existsSync(fixture.project)).toBe(false);
    });
  });
});
