import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { applyToolEdit, applyToolWrite, captureExec, openCaptureContext } from '../../src/checkpoint/index.js';
import { openWaypoint, type Waypoint } from '../../src/engine/index.js';
import { pinTurnBoundary } from '../../src/fork/index.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'waypoint.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read ad-hoc fields of the CLI's JSON output.
  json<T = any>(): T;
}

/** Runs the built CLI (`node bin/waypoint.js …`) in a child process, as a user would. */
export function runCli(args: string[], options: { home: string; cwd?: string; env?: Record<string, string> }): CliRun {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? options.home,
    env: { PATH: process.env.PATH ?? '', HOME: options.home, WAYPOINT_HOME: options.home, ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.error) throw result.error;
  return {
    code: result.status ?? -1,
    stdout: result.stdout,
    stderr: result.stderr,
    json: () => JSON.parse(result.stdout),
  };
}

export const PARSER = `export function parse(text) {
  return text.split('\\n').map((line) => {
    const [key, value] = line.split('=');
    return { key: key.trim(), value: value.trim() };
  });
}
`;

export interface TurnIds {
  turnId: string;
  inputId: string;
  replyId: string;
}

/**
 * A store in `<tmp>/home/waypoint.db` (the `WAYPOINT_HOME` the CLI runs with) and a project in
 * `<tmp>/project`, recorded through the engine the way an agent would: session "Parser work" with
 * two turns — (1) an Edit of src/parser.js and a Write of a binary assets/logo.bin; (2) a Write of
 * test/parser.test.js, a shell command creating test-results.txt, an Edit of README.md.
 */
export async function createCliFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-cli-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(project, 'src', 'parser.js'), PARSER);
  writeFileSync(join(project, 'README.md'), '# parser\n\nParses key=value lines.\n');
  const storePath = join(home, 'waypoint.db');
  const waypoint = await openWaypoint({ path: storePath });
  try {
    const session = await waypoint.history.createSession({ title: 'Parser work', workdir: project });
    const turn = async (
      waypointIn: Waypoint,
      text: string,
      work: (capture: Awaited<ReturnType<typeof openCaptureContext>>) => Promise<void>,
      reply: string,
    ): Promise<TurnIds> => {
      const input = await waypointIn.history.append(session.id, { role: 'user', parts: [{ type: 'text', text }] });
      const record = await waypointIn.store.createTurn({ sessionId: session.id, userMessageId: input.id });
      await work(await openCaptureContext({ store: waypointIn.store, blobs: waypointIn.blobs, sessionId: session.id, turnId: record.id }));
      const answer = await waypointIn.history.append(session.id, { role: 'assistant', turnId: record.id, parts: [{ type: 'text', text: reply }] });
      await waypointIn.store.updateTurn(record.id, { status: 'complete', endedAt: Date.now() });
      await pinTurnBoundary(waypointIn.store, record.id);
      return { turnId: record.id, inputId: input.id, replyId: answer.id };
    };
    const first = await turn(
      waypoint,
      'Why does the parser choke on empty lines?',
      async (capture) => {
        await applyToolEdit(capture, {
          path: 'src/parser.js',
          oldString: "  return text.split('\\n').map((line) => {",
          newString: "  return text.split('\\n').filter((line) => line.trim() !== '').map((line) => {",
          toolCallId: 'call_1',
        });
        await applyToolWrite(capture, {
          path: 'assets/logo.bin',
          content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0xff]),
          toolCallId: 'call_2',
        });
      },
      'Empty lines are now skipped.',
    );
    const second = await turn(
      waypoint,
      'Add a test, run it, and document the format.',
      async (capture) => {
        await applyToolWrite(capture, {
          path: 'test/parser.test.js',
          content: "import { parse } from '../src/parser.js';\nconsole.log(parse('a=1\\n\\nb=2').length === 2 ? 'ok' : 'fail');\n",
          toolCallId: 'call_3',
        });
        await captureExec(capture, () => execFileSync('bash', ['-c', 'printf "ok 1 parser\\n" > test-results.txt'], { cwd: project }));
        await applyToolEdit(capture, {
          path: 'README.md',
          oldString: 'Parses key=value lines.',
          newString: 'Parses key=value lines; empty lines are skipped.',
          toolCallId: 'call_4',
        });
      },
      'Added the test, ran it, documented empty lines.',
    );
    const checkpoints = await waypoint.store.listCheckpoints(session.id);
    return {
      dir,
      home,
      project,
      storePath,
      sessionId: session.id,
      first,
      second,
      /** Oldest first: parser.js edit, logo.bin write, test write, shell results, README edit. */
      checkpointIds: checkpoints.map((checkpoint) => checkpoint.id),
      cli: (...args: string[]) => runCli(args, { home }),
      read: (path: string) => readFileSync(join(project, path), 'utf8'),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  } finally {
    await waypoint.close();
  }
}

export type CliFixture = Awaited<ReturnType<typeof createCliFixture>>;

export { snapshotTree } from '../fixtures/snapshot-tree.js';

/** Opens the fixture's store read-only for checks the CLI output does not show. */
export async function inspect<T>(fixture: CliFixture, body: (waypoint: Waypoint) => Promise<T>): Promise<T> {
  const waypoint = await openWaypoint({ path: fixture.storePath, readOnly: true });
  try {
    return await body(waypoint);
  } finally {
    await waypoint.close();
  }
}
