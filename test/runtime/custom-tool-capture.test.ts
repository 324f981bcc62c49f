import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkpointedFs, defaultTools, defineTool, text, type RuntimeEvents } from '../../src/runtime/index.js';
import { runtimeFixture, type RuntimeFixture } from './runtime-fixture.js';

let fixture: RuntimeFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

/** Custom tools declared `effect: 'workspace'` that know nothing of Waypoint's capture. */
function customTools(workdir: () => string) {
  return [
    defineTool({
      name: 'stamp',
      description: 'Write a stamp file with node:fs and a report through a child process',
      effect: 'workspace',
      inputSchema: z.object({ value: z.string() }),
      async execute(input) {
        writeFileSync(join(workdir(), 'stamp.txt'), `${input.value}\n`);
        execFileSync(process.execPath, ['-e', "require('fs').writeFileSync('report.txt', 'from a child\\n')"], { cwd: workdir() });
        return text('stamped');
      },
    }),
    defineTool({
      name: 'cache',
      description: 'Write into an ignored directory',
      effect: 'workspace',
      inputSchema: z.object({}),
      async execute() {
        mkdirSync(join(workdir(), 'cache'), { recursive: true });
        writeFileSync(join(workdir(), 'cache', 'blob.bin'), 'x');
        return text('cached');
      },
    }),
    defineTool({
      name: 'crash',
      description: 'Write half, then throw',
      effect: 'workspace',
      inputSchema: z.object({}),
      async execute() {
        writeFileSync(join(workdir(), 'stamp.txt'), 'half\n');
        throw new Error('crashed half way');
      },
    }),
    defineTool({
      name: 'fsWrite',
      description: 'Write through the checkpointed file system',
      effect: 'workspace',
      inputSchema: z.object({}),
      async execute() {
        await checkpointedFs().writeFile('fs.txt', 'through fs\n');
        return text('written');
      },
    }),
  ];
}

async function start(steps: unknown[]): Promise<{ fixture: RuntimeFixture; sessionId: string }> {
  let workdir = '';
  const created = await runtimeFixture(steps, { tools: [...defaultTools(), ...customTools(() => workdir)] });
  workdir = created.workdir;
  fixture = created;
  const session = await created.runtime.startSession({ workdir: created.workdir });
  return { fixture: created, sessionId: session.id };
}

const toolEnds = (fixture: RuntimeFixture) =>
  fixture.events.filter((event) => event.name === 'tool-end').map((event) => event.event as RuntimeEvents['tool-end']);

describe("a runtime tool with effect 'workspace' that writes with node:fs", () => {
  it('is checkpointed in the turn (also what a child process wrote), and undo restores the files', async () => {
    const { fixture, sessionId } = await start([{ toolCalls: [{ toolName: 'stamp', input: { value: 'v1' } }] }, { text: 'Stamped.' }]);
    writeFileSync(join(fixture.workdir, 'stamp.txt'), 'v0\n');
    const result = await fixture.runtime.runTurn(sessionId, 'Stamp it');
    expect(readFileSync(join(fixture.workdir, 'stamp.txt'), 'utf8')).toBe('v1\n');
    const checkpoints = await fixture.waypoint.store.listCheckpoints(sessionId, { turnId: result.turn.id });
    expect(checkpoints.map((checkpoint) => [checkpoint.op, checkpoint.path, checkpoint.toolName])).toEqual([
      ['modify', 'workspace:stamp.txt', 'stamp'],
      ['create', 'workspace:report.txt', 'stamp'],
    ]);
    // Reported like any tool's checkpoints: events and the turn summary.
    expect(toolEnds(fixture)[0]!.checkpointIds).toEqual(checkpoints.map((checkpoint) => checkpoint.id));
    expect(result.summary.files.map((file) => file.displayPath).sort()).toEqual(['report.txt', 'stamp.txt']);

    const undo = await fixture.waypoint.files.rollbackTurn(result.turn.id);
    expect(undo.ok).toBe(true);
    expect(readFileSync(join(fixture.workdir, 'stamp.txt'), 'utf8')).toBe('v0\n');
    expect(existsSync(join(fixture.workdir, 'report.txt'))).toBe(false);
  });

  it('names a change it could not keep (an ignored path) in the result the model sees and on the turn', async () => {
    const { fixture, sessionId } = await start([{ toolCalls: [{ toolName: 'cache', input: {} }] }, { text: 'Cached.' }]);
    writeFileSync(join(fixture.workdir, '.gitignore'), 'cache/\n');
    const result = await fixture.runtime.runTurn(sessionId, 'Fill the cache');
    const [end] = toolEnds(fixture);
    expect(end!.output).toEqual({ type: 'text', value: 'cached\n[not every change could be checkpointed, so undo cannot restore it: cache ignored]' });
    const turn = await fixture.waypoint.store.getTurn(result.turn.id);
    expect(turn.metadata.partiallyProtected).toBe(true);
    expect(turn.metadata.uncovered).toEqual([expect.objectContaining({ path: 'workspace:cache', reason: 'ignored' })]);
  });

  it('keeps the changes of a tool that threw half way, and the model sees its error', async () => {
    const { fixture, sessionId } = await start([{ toolCalls: [{ toolName: 'crash', input: {} }] }, { text: 'It failed.' }]);
    writeFileSync(join(fixture.workdir, 'stamp.txt'), 'v0\n');
    const result = await fixture.runtime.runTurn(sessionId, 'Try it');
    expect(toolEnds(fixture)[0]!.output).toEqual({ type: 'error-text', value: 'crash failed: crashed half way' });
    const checkpoints = await fixture.waypoint.store.listCheckpoints(sessionId, { turnId: result.turn.id });
    expect(checkpoints.map((checkpoint) => [checkpoint.op, checkpoint.path, checkpoint.toolName])).toEqual([['modify', 'workspace:stamp.txt', 'crash']]);
    expect((await fixture.waypoint.files.rollbackTurn(result.turn.id)).ok).toBe(true);
    expect(readFileSync(join(fixture.workdir, 'stamp.txt'), 'utf8')).toBe('v0\n');
  });

  it('records writes through checkpointedFs() once, as fs checkpoints of the call', async () => {
    const { fixture, sessionId } = await start([{ toolCalls: [{ toolName: 'fsWrite', input: {} }] }, { text: 'Done.' }]);
    const result = await fixture.runtime.runTurn(sessionId, 'Write it');
    const checkpoints = await fixture.waypoint.store.listCheckpoints(sessionId, { turnId: result.turn.id });
    expect(checkpoints.map((checkpoint) => [checkpoint.source, checkpoint.op, checkpoint.path])).toEqual([['fs', 'create', 'workspace:fs.txt']]);
    expect(fixture.events.filter((event) => event.name === 'checkpoint-create')).toHaveLength(1);
  });
});
