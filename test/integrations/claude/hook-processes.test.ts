import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waypointSessionIdFor } from '../../../src/integrations/index.js';
import { createProject } from './project-fixture.js';

const BIN = resolve(import.meta.dirname, '..', '..', '..', 'bin', 'waypoint.js');
const CLAUDE_ID = '33333333-3333-4333-8333-333333333333';

/** The hook command as Claude Code runs it: a new process per event, the event on stdin; resolves with its exit code. */
function hook(storePath: string, event: Record<string, unknown>): Promise<number | null> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, 'hooks', 'run', 'claude', '--store', storePath], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, WAYPOINT_HOOK_HELPER_IDLE_MS: '3000' },
    });
    child.on('error', reject);
    child.on('close', resolvePromise);
    child.stdin.end(JSON.stringify(event));
  });
}

describe('hook processes of one session at once (real processes)', () => {
  let fixture: ReturnType<typeof createProject>;
  beforeEach(() => {
    fixture = createProject({ 'README.md': 'readme\n' });
  });
  afterEach(() => fixture.cleanup());

  const event = (hook_event_name: string, extra: Record<string, unknown> = {}) => ({
    session_id: CLAUDE_ID,
    cwd: fixture.project,
    hook_event_name,
    prompt_id: 'p1',
    ...extra,
  });
  const call = (id: string) =>
    Number(id.slice(1)) % 2 === 0
      ? { tool_name: 'Bash', tool_use_id: id, tool_input: { command: `echo > s${id}.txt` } }
      : { tool_name: 'Write', tool_use_id: id, tool_input: { file_path: join(fixture.project, `w${id}.txt`), content: '' } };

  it('parallel calls whose hooks run concurrently: each change recorded once, the lock left clean, exit 0 throughout', async () => {
    const ids = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    expect(await hook(fixture.storePath, event('UserPromptSubmit', { prompt: 'all at once' }))).toBe(0);
    expect(await Promise.all(ids.map((id) => hook(fixture.storePath, event('PreToolUse', call(id)))))).toEqual(ids.map(() => 0));
    for (const id of ids) writeFileSync(join(fixture.project, Number(id.slice(1)) % 2 === 0 ? `s${id}.txt` : `w${id}.txt`), `${id}\n`);
    expect(await Promise.all(ids.map((id) => hook(fixture.storePath, event('PostToolUse', call(id)))))).toEqual(ids.map(() => 0));
    expect(await hook(fixture.storePath, event('Stop', { last_assistant_message: 'done' }))).toBe(0);
    const listed = fixture.waypoint('checkpoints', CLAUDE_ID, '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.json().checkpoints.map((row: { source: string; op: string; path: string }) => `${row.source} ${row.op} ${row.path}`);
    expect(rows.sort()).toEqual(
      [
        'exec create workspace:sc2.txt',
        'exec create workspace:sc4.txt',
        'exec create workspace:sc6.txt',
        'tool create workspace:wc1.txt',
        'tool create workspace:wc3.txt',
        'tool create workspace:wc5.txt',
      ].sort(),
    );
    expect(readdirSync(join(fixture.home, '.waypoint', 'claude-hooks', 'locks'))).toEqual([]);
    expect(fixture.waypoint('hooks', 'status', '--json').json().failures).toEqual([]);
  });

  it('a hook process killed while holding the session lock does not block the next one', async () => {
    expect(await hook(fixture.storePath, event('UserPromptSubmit', { prompt: 'first' }))).toBe(0);
    // A holder that dies with SIGKILL inside its critical section leaves its lock directory behind.
    const holder = spawn('sleep', ['30']);
    const sessionLock = join(fixture.home, '.waypoint', 'claude-hooks', 'locks', `${waypointSessionIdFor(CLAUDE_ID)}.lock`);
    mkdirSync(sessionLock);
    writeFileSync(join(sessionLock, 'pid'), String(holder.pid));
    holder.kill('SIGKILL');
    await new Promise((resolvePromise) => holder.on('close', resolvePromise));
    expect(await hook(fixture.storePath, event('PreToolUse', call('c1')))).toBe(0);
    writeFileSync(join(fixture.project, 'wc1.txt'), 'after the takeover\n');
    expect(await hook(fixture.storePath, event('PostToolUse', call('c1')))).toBe(0);
    expect(existsSync(sessionLock)).toBe(false);
    const rows = fixture.waypoint('checkpoints', CLAUDE_ID, '--json').json().checkpoints;
    expect(rows.map((row: { path: string }) => row.path)).toEqual(['workspace:wc1.txt']);
  });
});
