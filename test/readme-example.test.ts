import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');

describe('README', () => {
  it('the library example runs as written (against a temporary directory)', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = /## Use it as a library\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'waypoint-readme-'));
    const script = join(root, 'test', `.readme-example-${process.pid}.mts`);
    try {
      mkdirSync(join(dir, 'project'));
      writeFileSync(join(dir, 'project', 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { test: 'node -e "require(\'fs\').writeFileSync(\'tested.txt\', \'ok\')"' } }));
      writeFileSync(script, `${example!.replaceAll('/tmp/w', dir).replace("from 'waypoint'", "from '../src/index.js'")}\nconsole.log('example done');\n`);
      const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { cwd: root });
      expect(stdout).toContain('example done');
      expect(readFileSync(join(dir, 'project', 'src', 'parser.js'), 'utf8')).toBe('export const parse = () => [];\n');
    } finally {
      rmSync(script, { force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
