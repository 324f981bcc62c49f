import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RuntimeFixture, runtimeFixture } from './runtime-fixture.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

function git(cwd: string, ...args: string[]): void {
  const env = { ...process.env, HOME: cwd, XDG_CONFIG_HOME: join(cwd, '.config'), GIT_CONFIG_NOSYSTEM: '1' };
  const result = spawnSync('git', args, { cwd, env });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
}

describe('files git tracks despite an ignore rule (force-added)', () => {
  it('a shell command’s changes to them are checkpointed, not reported ignored, and undoing the turn restores them', async () => {
    const command = 'echo changed >> fixtures/expected.log; echo changed > node_modules/patched/index.js; echo new > node_modules/other.js; echo x > debug.log';
    fixture = await runtimeFixture([{ toolCalls: [{ toolName: 'bash', input: { command } }] }, { text: 'Ran it.' }]);
    const { runtime, waypoint, workdir } = fixture;
    const files: Record<string, string> = {
      '.gitignore': '*.log\nnode_modules/\n',
      'fixtures/expected.log': 'expected\n',
      'node_modules/patched/index.js': 'original\n',
      'src/a.ts': 'a\n',
    };
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(workdir, path)), { recursive: true });
      writeFileSync(join(workdir, path), content);
    }
    git(workdir, 'init', '-q');
    git(workdir, 'add', '.gitignore', 'src/a.ts');
    git(workdir, 'add', '-f', 'fixtures/expected.log', 'node_modules/patched/index.js');

    const session = await runtime.startSession({ workdir });
    const result = await runtime.runTurn(session.id, 'Run the command');
    const checkpoints = await waypoint.store.listCheckpoints(session.id, { turnId: result.turn.id });
    expect(checkpoints.map((checkpoint) => [checkpoint.op, checkpoint.path, checkpoint.status]).sort()).toEqual([
      ['modify', 'workspace:fixtures/expected.log', 'recorded'],
      ['modify', 'workspace:node_modules/patched/index.js', 'recorded'],
    ]);
    // What git does not track stays ignored, and is named as such.
    const turn = await waypoint.store.getTurn(result.turn.id);
    expect((turn.metadata.uncovered as { path: string; reason: string }[]).map((item) => [item.path, item.reason])).toEqual([
      ['workspace:debug.log', 'ignored'],
      ['workspace:node_modules/other.js', 'ignored'],
    ]);

    const undo = await waypoint.files.rollbackTurn(result.turn.id);
    expect(undo.ok).toBe(true);
    expect(readFileSync(join(workdir, 'fixtures/expected.log'), 'utf8')).toBe('expected\n');
    expect(readFileSync(join(workdir, 'node_modules/patched/index.js'), 'utf8')).toBe('original\n');
  });
});
