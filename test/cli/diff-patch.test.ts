import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyToolEdit, applyToolWrite, captureExec, openCaptureContext } from '../../src/checkpoint/index.js';
import { openWaypoint } from '../../src/engine/index.js';
import { PtySession } from './pty-harness.js';
import { runCli } from './cli-harness.js';

/**
 * `waypoint diff` prints patches git itself applies: each checkpoint of a session working in a real
 * git repository (a one-line edit of a 3,000-line file, a created file, a mode change, a deletion),
 * applied with `git apply` onto the commit before it, gives the commit after it.
 */

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

describe('waypoint diff', () => {
  let dir: string;
  let home: string;
  let project: string;
  /** Each checkpoint with the git commit before and after it. */
  const steps: Array<{ checkpointId: string; before: string; after: string; label: string }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-diff-'));
    home = join(dir, 'home');
    project = join(dir, 'project');
    mkdirSync(home);
    mkdirSync(join(project, 'src'), { recursive: true });
    git(project, 'init', '-q');
    git(project, 'config', 'user.email', 'test@example.com');
    git(project, 'config', 'user.name', 'Test');
    git(project, 'config', 'core.fileMode', 'true');
    const big = Array.from({ length: 3000 }, (_, index) => `line ${index}`).join('\n');
    writeFileSync(join(project, 'src', 'big.txt'), `${big}\n`);
    writeFileSync(join(project, 'run.sh'), 'echo run\n');
    writeFileSync(join(project, 'old.txt'), 'to be deleted\n');
    git(project, 'add', '-A');
    git(project, 'commit', '-qm', 'start');
    const head = () => git(project, 'rev-parse', 'HEAD').trim();
    const waypoint = await openWaypoint({ path: join(home, 'waypoint.db') });
    try {
      const session = await waypoint.history.createSession({ title: 'Diffs', workdir: project });
      const input = await waypoint.history.append(session.id, { role: 'user', parts: [{ type: 'text', text: 'change things' }] });
      const turn = await waypoint.store.createTurn({ sessionId: session.id, userMessageId: input.id });
      const capture = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: session.id, turnId: turn.id });
      const step = async (label: string, work: () => Promise<unknown>) => {
        const before = head();
        const known = new Set((await waypoint.store.listCheckpoints(session.id)).map((checkpoint) => checkpoint.id));
        await work();
        git(project, 'add', '-A');
        git(project, 'commit', '-qm', label);
        const added = (await waypoint.store.listCheckpoints(session.id)).filter((checkpoint) => !known.has(checkpoint.id));
        expect(added, label).toHaveLength(1);
        steps.push({ checkpointId: added[0]!.id, before, after: head(), label });
      };
      await step('one line of a big file', () =>
        applyToolEdit(capture, { path: 'src/big.txt', oldString: 'line 1500\n', newString: 'line 1500, changed\n', toolCallId: 'call_1' }),
      );
      await step('a created file', () => applyToolWrite(capture, { path: 'src/new.txt', content: 'brand new\n', toolCallId: 'call_2' }));
      await step('a mode change', () => captureExec(capture, () => execFileSync('chmod', ['+x', 'run.sh'], { cwd: project })));
      await step('a deleted file', () => captureExec(capture, () => execFileSync('rm', ['old.txt'], { cwd: project })));
    } finally {
      await waypoint.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints patches with git headers that git apply takes, onto the commit before each change giving the one after', () => {
    for (const { checkpointId, before, after, label } of steps) {
      const run = runCli(['diff', checkpointId], { home });
      expect(run.code, label).toBe(0);
      // Not a terminal: no color.
      expect(run.stdout, label).not.toContain('\x1b[');
      const check = join(dir, `check-${checkpointId}`);
      git(dir, 'clone', '-q', project, check);
      git(check, 'config', 'core.fileMode', 'true');
      git(check, 'checkout', '-q', before);
      const patch = join(dir, `${checkpointId}.patch`);
      writeFileSync(patch, run.stdout);
      git(check, 'apply', '--check', patch);
      git(check, 'apply', patch);
      git(check, 'add', '-A');
      expect(git(check, 'diff', '--cached', after, '--stat'), `${label}:\n${run.stdout}`).toBe('');
    }
    const [edit, created, mode, deleted] = steps.map((step) => runCli(['diff', step.checkpointId], { home }).stdout);
    expect(edit).toContain('diff --git a/src/big.txt b/src/big.txt\n--- a/src/big.txt\n+++ b/src/big.txt\n@@ -1498,7 +1498,7 @@');
    // A one-line change of a 3,000-line file is a small patch: the header lines, one hunk of seven lines and the change.
    expect(edit!.trim().split('\n').length).toBeLessThan(16);
    expect(created).toContain('diff --git a/src/new.txt b/src/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/src/new.txt\n');
    expect(mode).toContain('diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n');
    expect(deleted).toContain('diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n');
  });

  it('is colored on a terminal: hunk ranges cyan, removals red, additions green; plain with NO_COLOR', async () => {
    const edit = steps[0]!.checkpointId;
    const colored = new PtySession(['diff', edit], { home, cwd: project });
    expect(await colored.exit()).toBe(0);
    expect(colored.raw).toContain('\x1b[36m@@ -1498,7 +1498,7 @@');
    expect(colored.raw).toContain('\x1b[31m-line 1500\x1b[39m');
    expect(colored.raw).toContain('\x1b[32m+line 1500, changed\x1b[39m');
    const plain = new PtySession(['diff', edit], { home, cwd: project, env: { NO_COLOR: '1' } });
    expect(await plain.exit()).toBe(0);
    expect(plain.raw).toContain('+line 1500, changed');
    expect(plain.raw).not.toContain('\x1b[3');
  });
});
