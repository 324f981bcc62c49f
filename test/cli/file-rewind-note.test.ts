import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeFixture, type RuntimeFixture } from '../runtime/runtime-fixture.js';
import { runCli } from './cli-harness.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

const NOTE = 'Note from Waypoint: the person rewound files';

describe('a files-only rewind made by the CLI in another process (built CLI)', () => {
  it('is named to the model at its next call, and `waypoint show` does not show the note', async () => {
    fixture = await runtimeFixture([
      { toolCalls: [{ toolName: 'write', input: { path: 'a.txt', content: 'v1\n' } }] },
      { text: 'Changed a.txt.' },
      { text: 'I will read it again.' },
    ]);
    writeFileSync(join(fixture.workdir, 'a.txt'), 'v0\n');
    const session = await fixture.runtime.startSession({ workdir: fixture.workdir });
    const first = await fixture.runtime.runTurn(session.id, 'Change a.txt');
    const cli = (...args: string[]) => runCli([...args, '--store', fixture!.storePath], { home: fixture!.dir });

    const rewind = cli('rewind', session.id, 'code', first.turn.userMessageId, '--apply');
    expect(rewind.stderr).toBe('');
    expect(rewind.code).toBe(0);
    expect(readFileSync(join(fixture.workdir, 'a.txt'), 'utf8')).toBe('v0\n');

    await fixture.runtime.runTurn(session.id, 'What does a.txt hold?');
    const prompt = JSON.stringify(fixture.model.calls[2]);
    expect(prompt).toContain(NOTE);
    expect(prompt).toContain('- a.txt: restored to an earlier version');

    const show = cli('show', session.id);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('What does a.txt hold?');
    expect(show.stdout).not.toContain(NOTE);
    const shown = cli('show', session.id, '--json').json();
    expect(JSON.stringify(shown.messages)).not.toContain(NOTE);
  });
});
