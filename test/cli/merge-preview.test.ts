import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyToolEdit, openCaptureContext } from '../../src/checkpoint/index.js';
import { openWaypoint } from '../../src/engine/index.js';
import { pinTurnBoundary } from '../../src/fork/index.js';
import { runCli } from './cli-harness.js';

/**
 * The merge a conflicted undo offers is shown as what it changes in the file as it is now (a diff
 * of a few lines), not as the whole merged file: an agent changed line 10 of a 400-line file, the
 * person then changed line 300.
 */

const lines = (changes: Record<number, string> = {}) =>
  Array.from({ length: 400 }, (_, index) => changes[index + 1] ?? `line ${index + 1}`)
    .join('\n')
    .concat('\n');

describe('the merge preview of a conflicted undo', () => {
  let dir: string;
  let home: string;
  let project: string;
  let sessionId: string;
  let inputId: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-merge-preview-'));
    home = join(dir, 'home');
    project = join(dir, 'project');
    mkdirSync(home);
    mkdirSync(project);
    writeFileSync(join(project, 'long.txt'), lines());
    const waypoint = await openWaypoint({ path: join(home, 'waypoint.db') });
    try {
      const session = await waypoint.history.createSession({ title: 'Merge', workdir: project });
      sessionId = session.id;
      const input = await waypoint.history.append(session.id, { role: 'user', parts: [{ type: 'text', text: 'change line 10' }] });
      inputId = input.id;
      const turn = await waypoint.store.createTurn({ sessionId: session.id, userMessageId: input.id });
      const capture = await openCaptureContext({ store: waypoint.store, blobs: waypoint.blobs, sessionId: session.id, turnId: turn.id });
      await applyToolEdit(capture, { path: 'long.txt', oldString: 'line 10\n', newString: 'line 10 by the agent\n', toolCallId: 'call_1' });
      await waypoint.history.append(session.id, { role: 'assistant', turnId: turn.id, parts: [{ type: 'text', text: 'Done.' }] });
      await waypoint.store.updateTurn(turn.id, { status: 'complete', endedAt: Date.now() });
      await pinTurnBoundary(waypoint.store, turn.id);
    } finally {
      await waypoint.close();
    }
    // The person's own edit, after the agent's.
    writeFileSync(join(project, 'long.txt'), lines({ 10: 'line 10 by the agent', 300: 'line 300 by the person' }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rewind --preview shows the diff of the merged result against the current file, and changes nothing', () => {
    const run = runCli(['rewind', sessionId, 'code', inputId, '--apply', '--preview'], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('with --resolve long.txt=merge, the file as it is now changes:');
    expect(run.stdout).toContain('      @@ -7,7 +7,7 @@\n       line 7\n       line 8\n       line 9\n      -line 10 by the agent\n      +line 10\n');
    // Not the whole merged file: the person's line and the far lines are not printed.
    expect(run.stdout).not.toContain('line 300 by the person');
    expect(run.stdout).not.toContain('line 200');
    expect(run.stdout.split('\n').length).toBeLessThan(40);
    const json = runCli(['rewind', sessionId, 'code', inputId, '--apply', '--preview', '--json'], { home }).json();
    const file = json.preview.files.find((candidate: { path: string }) => candidate.path === 'workspace:long.txt');
    expect(file.mergedText).toBe(lines({ 300: 'line 300 by the person' }));
    expect(file.mergePatch).toContain('-line 10 by the agent\n+line 10\n');
    expect(readFileSync(join(project, 'long.txt'), 'utf8')).toBe(lines({ 10: 'line 10 by the agent', 300: 'line 300 by the person' }));
  });
});
