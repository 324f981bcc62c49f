/// <reference lib="dom" />
/**
 * The browser UI in Debian's Chromium against a real `waypoint serve` (run `npm run build` first):
 * (a) a 10k-message session (2,500 turns of input, tool call, 2 KB tool output, reply) opened until
 *     its newest message is drawn, against the same page saved as static HTML loaded in the same
 *     browser; goal under 1 s;
 * (b) the `/rewind` list of that session (2,500 inputs) from Enter until the newest is drawn and
 *     selected, against inserting the same list as static HTML into the page; goal under 100 ms.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { SqliteStore } from '../../src/store/index.js';
import type { BenchContext, BenchResult, BenchSuite } from '../harness.js';
import { seedLongSession } from '../long-session.js';

const SUITE = 'web';
const ROOT = resolve(import.meta.dirname, '..', '..');

async function seed(storePath: string, workdir: string, turns: number): Promise<string> {
  const store = await SqliteStore.open({ path: storePath });
  try {
    return await seedLongSession(store, turns, workdir);
  } finally {
    await store.close();
  }
}

async function serve(storePath: string, cwd: string): Promise<{ url: string; stop(): void }> {
  // Nothing is sent to a model here; serve still needs one named.
  const script = join(cwd, '..', 'script.json');
  writeFileSync(script, JSON.stringify({ steps: [] }));
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'waypoint.js'), 'serve', '--port', '0', '--store', storePath, '--model', `scripted:${script}`], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/[^\s]+\?token=[\w-]+/.exec(output);
      if (match) resolveUrl(match[0]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`waypoint serve exited (${code}):\n${output}`)));
  });
  return { url, stop: () => child.kill('SIGKILL') };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context: BenchContext): Promise<BenchResult[]> {
    if (!existsSync(join(ROOT, 'dist', 'web', 'index.html'))) throw new Error('dist/web is missing: run npm run build first');
    const dir = context.tempDir('waypoint-bench-web-');
    const project = join(dir, 'project');
    mkdirSync(project);
    const turns = context.quick ? 250 : 2500;
    const storePath = join(dir, 'waypoint.db');
    const sessionId = await seed(storePath, project, turns);
    const server = await serve(storePath, project);
    const profile = join(dir, 'profile');
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      const last = `answer ${turns - 1}`;
      const openApp = async () => {
        await page.goto('about:blank');
        const start = Date.now();
        await page.goto(`${server.url}#session=${sessionId}`);
        await page.locator('ol[aria-label="Conversation"] p.text', { hasText: last }).waitFor();
        return Date.now() - start;
      };
      const appRuns: number[] = [];
      for (let run = 0; run < (context.quick ? 2 : 5); run++) appRuns.push(await openApp());
      const app = median(appRuns.slice(1));
      // The same screen as static HTML (the rendered DOM saved, scripts dropped), loaded the same way.
      const snapshot = await page.evaluate(() => {
        const clone = document.documentElement.cloneNode(true) as HTMLElement;
        clone.querySelectorAll('script').forEach((script) => {
          script.remove();
        });
        return `<!doctype html>${clone.outerHTML}`;
      });
      const staticFile = join(dir, 'static.html');
      writeFileSync(staticFile, snapshot);
      const staticRuns: number[] = [];
      for (let run = 0; run < (context.quick ? 2 : 5); run++) {
        await page.goto('about:blank');
        const start = Date.now();
        await page.goto(`file://${staticFile}`);
        await page.locator('ol[aria-label="Conversation"] p.text', { hasText: last }).waitFor();
        staticRuns.push(Date.now() - start);
      }
      const still = median(staticRuns.slice(1));

      await openApp();
      // The baseline: the same inputs as one static list, every row in the DOM.
      const html = `<ul style="max-height:240px;overflow:auto">${Array.from({ length: turns }, (_, turn) => `<li>question ${turn}: what about part ${turn}?<time>12:00:00</time></li>`).join('')}</ul>`;
      const listRuns: number[] = [];
      const insertRuns: number[] = [];
      for (let run = 0; run < (context.quick ? 2 : 5); run++) {
        const box = page.getByRole('textbox', { name: 'Message' });
        await box.fill('/rewind');
        // From Enter in the box to every option laid out, timed inside the page. A string, so the
        // bench's transpiler adds no helper the page lacks.
        listRuns.push(
          await page.evaluate<number>(`new Promise((resolve) => {
            const start = performance.now();
            const observer = new MutationObserver(() => {
              const newest = document.querySelector('[role="option"][aria-posinset="${turns}"]');
              if (!newest || newest.getAttribute('aria-selected') !== 'true') return;
              document.querySelector('[role="listbox"]').getBoundingClientRect();
              observer.disconnect();
              resolve(performance.now() - start);
            });
            observer.observe(document.body, { childList: true, subtree: true });
            document.querySelector('textarea').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
          })`),
        );
        await page.keyboard.press('Escape');
        insertRuns.push(
          await page.evaluate((markup) => {
            const start = performance.now();
            const holder = document.createElement('div');
            holder.innerHTML = markup;
            document.querySelector('main')!.append(holder);
            holder.getBoundingClientRect();
            const elapsed = performance.now() - start;
            holder.remove();
            return elapsed;
          }, html),
        );
      }
      const list = median(listRuns);
      // The server's share: the same two requests on a socket of their own, nothing drawn.
      const token = new URL(server.url).searchParams.get('token');
      const rpcTimes = await page.evaluate<{ list: number; page: number }>(`new Promise((resolve) => {
        const socket = new WebSocket(location.origin.replace('http', 'ws') + '/rpc?token=${token}');
        const times = {};
        let id = 0;
        const call = (method, params) => new Promise((done) => {
          const mine = ++id;
          const start = performance.now();
          const listener = (event) => {
            if (JSON.parse(event.data).id !== mine) return;
            socket.removeEventListener('message', listener);
            done(performance.now() - start);
          };
          socket.addEventListener('message', listener);
          socket.send(JSON.stringify({ jsonrpc: '2.0', id: mine, method, params }));
        });
        socket.onopen = async () => {
          const lists = [], pages = [];
          for (let run = 0; run < 5; run++) {
            lists.push(await call('rewind.list', { sessionId: '${sessionId}' }));
            pages.push(await call('conversation.page', { sessionId: '${sessionId}', limit: 50 }));
          }
          lists.sort((a, b) => a - b);
          pages.sort((a, b) => a - b);
          socket.close();
          resolve({ list: lists[2], page: pages[2] });
        };
      })`);
      const insert = median(insertRuns);
      return [
        {
          suite: SUITE,
          name: `open a ${turns * 4}-message session, newest page drawn`,
          value: app,
          unit: 'ms',
          baseline: { name: 'the same screen as static HTML', value: still },
          ratio: app / still,
          goal: '< 1000 ms',
          met: app < 1000,
          note: `of which conversation.page alone: ${rpcTimes.page.toFixed(0)} ms`,
        },
        {
          suite: SUITE,
          name: `/rewind list of ${turns} inputs (${turns * 4} messages) drawn`,
          value: list,
          unit: 'ms',
          baseline: { name: 'the same list inserted as static HTML', value: insert },
          ratio: list / insert,
          goal: '< 100 ms',
          met: list < 100,
          note: `from Enter in the input box; of which rewind.list alone: ${rpcTimes.list.toFixed(0)} ms`,
        },
      ];
    } finally {
      await browser.close();
      server.stop();
    }
  },
};

export default suite;
