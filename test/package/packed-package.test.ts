import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPackedProject, readmeBlocks, repoRoot } from './packed-project.js';

let project: { dir: string; tarball: string };

function node(file: string, source: string) {
  writeFileSync(join(project.dir, file), source);
  const run = spawnSync(process.execPath, [file], { cwd: project.dir, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(() => {
  project = createPackedProject();
});
afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

describe('the packed package, installed in a project of its own', () => {
  it("runs README's library examples exactly as printed", () => {
    const blocks = readmeBlocks('Use it as a library').filter((block) => block.lang === 'js');
    expect(blocks.length).toBeGreaterThan(0);
    blocks.forEach((block, index) => {
      const run = node(`readme-${index + 1}.mjs`, block.code);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      if (index === 0) expect(run.stdout).toBe('Step 1: stream the input\n\nStep 1: parse\nStep 3: test\n\n');
    });
  });

  it('exports the runtime and the operations by name, and nothing internal', () => {
    const run = node(
      'names.mjs',
      `import * as waypoint from 'waypoint';
import * as testing from 'waypoint/testing';
const wanted = ['openWaypoint', 'createRuntime', 'rewind', 'previewRewind', 'applyRewind', 'redo', 'rewindToSavePoint', 'edit', 'retry', 'forkSession', 'previewFork', 'forkFromSavePoint', 'rewindStatus', 'defineTool', 'ScriptedModel', 'WaypointError'];
console.log(JSON.stringify({
  wanted: Object.fromEntries(wanted.map((name) => [name, typeof waypoint[name]])),
  schema: typeof waypoint.RewindRequest.safeParse,
  internals: ['fsyncDirectory', 'encodeDelta', 'prepareFileWrite', 'renderFamilyTree', 'SqliteStore', 'BlobStore', 'SessionForker', 'rewindSession'].filter((name) => name in waypoint),
  count: Object.keys(waypoint).length,
  testing: { ScriptedModel: typeof testing.ScriptedModel, runStoreConformance: typeof testing.runStoreConformance },
}));`,
    );
    expect(run.stderr).toBe('');
    const names = JSON.parse(run.stdout) as {
      wanted: Record<string, string>;
      schema: string;
      internals: string[];
      count: number;
      testing: Record<string, string>;
    };
    expect(Object.entries(names.wanted).filter(([, type]) => type !== 'function')).toEqual([]);
    expect(names.schema).toBe('function');
    expect(names.internals).toEqual([]);
    expect(names.count).toBeLessThan(60);
    expect(names.testing).toEqual({ ScriptedModel: 'function', runStoreConformance: 'function' });
  });

  it('refuses deep imports under dist/, for import and require alike', () => {
    const run = node(
      'deep.mjs',
      `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const codes = [];
for (const path of ['waypoint/dist/index.js', 'waypoint/dist/runtime/index.js', 'waypoint/dist/rewind/files/journaled-apply.js']) {
  try { await import(path); codes.push('imported ' + path); } catch (error) { codes.push(error.code); }
  try { require.resolve(path); codes.push('resolved ' + path); } catch (error) { codes.push(error.code); }
}
console.log(JSON.stringify(codes));`,
    );
    expect(JSON.parse(run.stdout)).toEqual(Array(6).fill('ERR_PACKAGE_PATH_NOT_EXPORTED'));
  });

  it('loads from CommonJS with require()', () => {
    const run = node('commonjs.cjs', "const { createRuntime, rewind } = require('waypoint');\nconsole.log(typeof createRuntime, typeof rewind);\n");
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('function function\n');
  });

  it('type-checks a TypeScript consumer against the packed declarations', () => {
    writeFileSync(
      join(project.dir, 'consumer.mts'),
      `import { createRuntime, openWaypoint, rewind, type RewindRequest, type RewindResult } from 'waypoint';
import { ScriptedModel, runStoreConformance } from 'waypoint/testing';
const request: RewindRequest = { sessionId: 'ses_1', messageId: 'msg_1', scope: 'both' };
export async function main(): Promise<RewindResult> {
  const waypoint = await openWaypoint({ path: 'w.db' });
  createRuntime({ waypoint, model: ScriptedModel.fromSteps([{ text: 'hi' }]) });
  return rewind({ waypoint }, request);
}
export const conformance: typeof runStoreConformance = runStoreConformance;
`,
    );
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
      '--types',
      'node',
      '--typeRoots',
      join(repoRoot, 'node_modules', '@types'),
    ];
    const run = spawnSync(process.execPath, [tsc, ...flags, 'consumer.mts'], { cwd: project.dir, encoding: 'utf8' });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(readdirSync(project.dir)).toContain('consumer.mts');
  });
});
