import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'waypoint.js');
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the browser tests can run here: they drive Debian's Chromium, never a downloaded browser.
 * Without it they are skipped, saying why — except in CI (`$CI` set, `.ci/run` installs it), where
 * its absence fails a test instead of letting the suite pass unseen.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const reason = `no browser at ${CHROMIUM}: install Debian's chromium package (.ci/run does)`;
  if (process.env.CI) {
    it('needs Chromium in CI', () => {
      throw new Error(`CI is set but ${reason}`);
    });
  } else console.warn(`browser tests skipped: ${reason}`);
  return false;
}
/** Screenshots of the main screens, written by the tests (artifacts, not compared); `$WAYPOINT_ARTIFACTS` moves them. */
export const SCREENSHOTS = join(process.env.WAYPOINT_ARTIFACTS ?? join(ROOT, 'artifacts'), 'web-screenshots');

/** A temp directory with a store home, a project and a scripted model file. */
export interface WebFixture {
  dir: string;
  home: string;
  project: string;
  storePath: string;
  script: string;
  read(path: string): string | null;
  cleanup(): void;
}

export function webFixture(steps: unknown[], files: Record<string, string> = {}): WebFixture {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-web-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(project, path, '..'), { recursive: true });
    writeFileSync(join(project, path), content);
  }
  const script = join(dir, 'script.json');
  writeFileSync(script, JSON.stringify({ steps }));
  return {
    dir,
    home,
    project,
    storePath: join(home, 'waypoint.db'),
    script,
    read: (path) => (existsSync(join(project, path)) ? readFileSync(join(project, path), 'utf8') : null),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `waypoint serve` in a child process: the URL it printed (token included), killed with SIGKILL at the end. */
export interface Server {
  url: string;
  origin: string;
  token: string;
  child: ChildProcess;
  output(): string;
  stop(): void;
}

export async function startServe(fixture: WebFixture): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--store', fixture.storePath, '--model', `scripted:${fixture.script}`], {
    cwd: fixture.project,
    env: { PATH: process.env.PATH ?? '', HOME: fixture.home, WAYPOINT_HOME: fixture.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`waypoint serve printed no URL in 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/[^\s]+\?token=[\w-]+/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[0]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`waypoint serve exited (${code}) before printing its URL:\n${output}`));
    });
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token')!,
    child,
    output: () => output,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** Debian's Chromium, headless, with a fresh profile; never a downloaded browser. */
export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'waypoint-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function screenshot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** Runs the built CLI against the fixture's store, as another terminal would. */
export function runCli(fixture: WebFixture, args: string[]): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: fixture.project,
    env: { PATH: process.env.PATH ?? '', HOME: fixture.home, WAYPOINT_HOME: fixture.home },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
