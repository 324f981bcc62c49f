import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookFilesPath, hookStoreFlags, hookStoreFromFlags, storeUrlFile, writeStoreUrlFile } from './hook-store.js';

const URL_A = 'postgres://alice:s3cret@db.example:5432/waypoint?schema=team';

describe('the store a hook command names', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'waypoint-hook-store-'));
    env = { WAYPOINT_HOME: home };
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('keeps a URL in a file only its owner reads, named without the password, so a new password replaces it in place', () => {
    const file = writeStoreUrlFile(URL_A, env);
    expect(file.startsWith(join(home, 'stores'))).toBe(true);
    expect(file).not.toContain('s3cret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8')).toBe(`${URL_A}\n`);
    const rotated = URL_A.replace('s3cret', 'n3w');
    expect(writeStoreUrlFile(rotated, env)).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(`${rotated}\n`);
    expect(storeUrlFile(URL_A.replace('team', 'other'), env)).not.toBe(file);
  });

  it('installs a URL as --store-file and a file as --store; the hooks then read the URL back, their files beside the URL file', () => {
    const flags = hookStoreFlags(URL_A, env);
    expect(flags).toEqual(['--store-file', storeUrlFile(URL_A, env)]);
    expect(flags.join(' ')).not.toContain('s3cret');
    writeStoreUrlFile(URL_A, env);
    expect(hookStoreFromFlags(['run', 'claude', ...flags], '/default/waypoint.db', env)).toEqual({ storePath: flags[1], location: URL_A, flags });
    expect(hookFilesPath(URL_A, env)).toBe(flags[1]);
    expect(hookStoreFlags('/s/waypoint.db', env)).toEqual(['--store', '/s/waypoint.db']);
    expect(hookStoreFromFlags(['run', 'codex', '--store', '/s/waypoint.db'], '/d/waypoint.db', env).location).toBe('/s/waypoint.db');
    expect(hookStoreFromFlags(['run', 'codex'], '/d/waypoint.db', env).location).toBe('/d/waypoint.db');
  });

  it('refuses a URL file that cannot be read (the caller logs it), rather than open the file as a store', () => {
    expect(() => hookStoreFromFlags(['run', 'claude', '--store-file', join(home, 'missing.url')], '/d/waypoint.db', env)).toThrow();
  });
});
