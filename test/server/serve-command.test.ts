import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliProcess } from './server-harness.js';

const CLI = resolve(import.meta.dirname, 'fixtures', 'cli.ts');
const dir = mkdtempSync(join(tmpdir(), 'waypoint-serve-cli-'));

describe('waypoint serve', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a loopback URL with a fresh token on a free port; the page needs it; SIGTERM stops it', async () => {
    mkdirSync(join(dir, 'store'));
    const store = join(dir, 'store', 'waypoint.db');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0', '--store', store, '--model', 'scripted:examples/chat-script.json'], {
      cwd: resolve(import.meta.dirname, '..', '..'),
      env: { PATH: process.env.PATH ?? '', HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((done, fail) => {
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
          const match = /Open (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43})/.exec(out);
          if (match) done(match[1]!);
        });
        child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${out}`)));
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      // The page is the built UI when `npm run build` has run in this checkout, else the page saying it is not built.
      const built = existsSync(resolve(import.meta.dirname, '..', '..', 'dist', 'web', 'index.html'));
      expect(await page.text()).toContain(built ? '<div id="root">' : 'not built');
      const origin = new URL(url).origin;
      expect((await fetch(`${origin}/`)).status).toBe(401);
      const info = await fetch(`${origin}/rpc`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${new URL(url).searchParams.get('token')}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server.info', params: {} }),
      });
      expect(((await info.json()) as { result: { model: string } }).result.model).toMatch(/^scripted:/);
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('refuses to start without a model (MODEL_REQUIRED) and a port out of range', () => {
    const store = join(dir, 'other.db');
    const noModel = runCliProcess(['serve', '--json'], store);
    expect(noModel.code).not.toBe(0);
    expect(JSON.parse(noModel.stdout).error.code).toBe('MODEL_REQUIRED');
    const badPort = runCliProcess(['serve', '--port', '70000', '--model', 'scripted:examples/chat-script.json', '--json'], store);
    expect(JSON.parse(badPort.stdout).error.code).toBe('INVALID_ARGUMENT');
  });
});
