/**
 * The server-side methods alone, in process, on the web suite's 10k-message session (2,500 turns
 * of input, tool call, 2 KB tool output, reply): `conversation.page` (its newest 50) and
 * `rewind.list`'s targets, each read from the path's outline warm (the path outlined before, as
 * in a running server) and cold (nothing outlined: a server's first read of the session), against
 * the whole-path read they replaced (the path without payloads, the view over all of it, then the
 * page's or the inputs' messages). Samples interleaved in one run; medians.
 */
import { join } from 'node:path';
import { conversationView, forgetOutlines, isUserInput, listRewindTargets } from '../../src/history/index.js';
import type { Session } from '../../src/model/index.js';
import { conversationPage } from '../../src/server/index.js';
import { SqliteStore, type Store } from '../../src/store/index.js';
import type { BenchContext, BenchResult, BenchSuite } from '../harness.js';
import { seedLongSession } from '../long-session.js';

const SUITE = 'paged-history';

/** The newest page as it was read before the outline: the whole path, its view, then the page. */
async function wholePathPage(store: Store, session: Session, limit: number): Promise<number> {
  const path = await store.history(session.id, { parts: 'none' });
  const entries = conversationView(path);
  const page = entries.slice(-limit);
  await store.getMessages(page.filter((entry) => entry.message.role !== 'tool').map((entry) => entry.message.id));
  await store.listTurns(session.id);
  return page.length;
}

/** The `/rewind` targets as they were read before: user and assistant messages of the path, then the inputs. */
async function wholePathTargets(store: Store, sessionId: string): Promise<number> {
  const messages = await store.history(sessionId, { parts: 'none', roles: ['user', 'assistant'] });
  return (await store.getMessages(messages.filter((message) => isUserInput(message)).map((message) => message.id))).length;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const suite: BenchSuite = {
  name: SUITE,
  async run(context: BenchContext): Promise<BenchResult[]> {
    const dir = context.tempDir('waypoint-bench-paged-');
    const store = await SqliteStore.open({ path: join(dir, 'waypoint.db') });
    try {
      const turns = context.quick ? 250 : 2500;
      const sessionId = await seedLongSession(store, turns);
      const session = await store.getSession(sessionId);
      const samples = {
        whole: [] as number[],
        cold: [] as number[],
        warm: [] as number[],
        listWhole: [] as number[],
        listCold: [] as number[],
        listWarm: [] as number[],
      };
      const page = () => conversationPage(store, session, { limit: 50, running: false });
      for (let run = 0; run < (context.quick ? 5 : 15); run++) {
        samples.whole.push(await time(() => wholePathPage(store, session, 50)));
        forgetOutlines(store);
        samples.cold.push(await time(page));
        samples.warm.push(await time(page));
        samples.listWhole.push(await time(() => wholePathTargets(store, sessionId)));
        forgetOutlines(store);
        samples.listCold.push(await time(() => listRewindTargets(store, sessionId)));
        samples.listWarm.push(await time(() => listRewindTargets(store, sessionId)));
      }
      const whole = median(samples.whole);
      const listWhole = median(samples.listWhole);
      const row = (name: string, value: number, baseline: { name: string; value: number }, goal: string, met: boolean, note: string): BenchResult => ({
        suite: SUITE,
        name,
        value,
        unit: 'ms',
        baseline,
        ratio: value / baseline.value,
        goal,
        met,
        note,
      });
      const messages = turns * 4;
      return [
        row(
          `conversation.page, newest 50 of ${messages}, path outlined`,
          median(samples.warm),
          { name: 'the whole-path read', value: whole },
          '≤ 0.1× the whole-path read',
          median(samples.warm) <= whole * 0.1,
          'the server has read the session before (each later open, each page after an append)',
        ),
        row(
          `conversation.page, newest 50 of ${messages}, cold`,
          median(samples.cold),
          { name: 'the whole-path read', value: whole },
          '≤ 1.5× the whole-path read',
          median(samples.cold) <= whole * 1.5,
          'the first read of the session in this process: the path without payloads, once',
        ),
        row(
          `rewind.list targets, ${turns} inputs of ${messages}, path outlined`,
          median(samples.listWarm),
          { name: 'the whole-path read', value: listWhole },
          '≤ 0.5× the whole-path read',
          median(samples.listWarm) <= listWhole * 0.5,
          'loads the inputs alone',
        ),
        row(
          `rewind.list targets, ${turns} inputs of ${messages}, cold`,
          median(samples.listCold),
          { name: 'the whole-path read', value: listWhole },
          '≤ 1.5× the whole-path read',
          median(samples.listCold) <= listWhole * 1.5,
          'the first read of the session in this process',
        ),
      ];
    } finally {
      await store.close();
    }
  },
};

export default suite;
