import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliFixture, type CliFixture } from './cli-harness.js';

const README_BEFORE = '# parser\n\nParses key=value lines.\n';
const README_AFTER = '# parser\n\nParses key=value lines; empty lines are skipped.\n';

/** `--resolve <path>=skip`: the same spelling for undo (`rewind … --apply`) and `redo`; the file is left as it is. */
describe('waypoint rewind and redo: --resolve <path>=skip', () => {
  let fixture: CliFixture;
  beforeEach(async () => {
    fixture = await createCliFixture();
  });
  afterEach(() => fixture.cleanup());
  const readme = () => readFileSync(join(fixture.project, 'README.md'));
  const testFile = () => existsSync(join(fixture.project, 'test', 'parser.test.js'));

  it('undo leaves the skipped file byte for byte, rewinds the rest and says so; its redo leaves the file too', () => {
    const mine = Buffer.concat([Buffer.from(README_AFTER), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('\nmine\n')]);
    writeFileSync(join(fixture.project, 'README.md'), mine);
    const run = fixture.cli('rewind', fixture.sessionId, 'code', fixture.second.inputId, '--resolve', 'README.md=skip');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Skipped, left as they are: README.md');
    expect(readme().equals(mine)).toBe(true);
    expect(testFile()).toBe(false);
    const rewindId = /waypoint redo \S+ (jnl_\w+)/.exec(run.stdout)?.[1];
    expect(rewindId).toBeDefined();

    const redone = fixture.cli('redo', fixture.sessionId, rewindId!, '--json');
    expect(redone.code).toBe(0);
    expect(redone.json().result.files.map((file: { path: string }) => file.path)).not.toContain('workspace:README.md');
    expect(readme().equals(mine)).toBe(true);
    expect(testFile()).toBe(true);
  });

  it('--json names the skipped files; the preview shows the choice and the command that applies it', () => {
    writeFileSync(join(fixture.project, 'README.md'), `${README_AFTER}mine\n`);
    const preview = fixture.cli('rewind', fixture.sessionId, 'code', fixture.second.inputId, '--resolve', 'README.md=skip', '--preview');
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(/README\.md\s+external_modified\s+none\s+resolved: skip/);
    expect(preview.stdout).toContain('--resolve README.md=skip');
    const run = fixture.cli('rewind', fixture.sessionId, 'code', fixture.second.inputId, '--resolve', 'README.md=skip', '--json');
    expect(run.code).toBe(0);
    expect(run.json().files.skipped).toEqual(['workspace:README.md']);
    expect(fixture.read('README.md')).toBe(`${README_AFTER}mine\n`);
  });

  it('redo --resolve <path>=skip leaves a file changed since the rewind and redoes the rest', () => {
    const undo = fixture.cli('rewind', fixture.sessionId, 'code', fixture.second.inputId, '--apply', '--json');
    expect(undo.code).toBe(0);
    expect(fixture.read('README.md')).toBe(README_BEFORE);
    writeFileSync(join(fixture.project, 'README.md'), `${README_BEFORE}the person\n`);
    expect(fixture.cli('redo', fixture.sessionId, undo.json().files.rewindId).code).toBe(4);
    const redo = fixture.cli('redo', fixture.sessionId, undo.json().files.rewindId, '--resolve', 'README.md=skip');
    expect(redo.code).toBe(0);
    expect(fixture.read('README.md')).toBe(`${README_BEFORE}the person\n`);
    expect(testFile()).toBe(true);
  });
});
