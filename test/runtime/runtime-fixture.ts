import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWaypoint, type Waypoint } from '../../src/engine/index.js';
import { createRuntime, ScriptedModel, type AgentRuntime, type RuntimeEvents, type RuntimeOptions } from '../../src/runtime/index.js';

export interface RecordedEvent {
  name: keyof RuntimeEvents;
  event: RuntimeEvents[keyof RuntimeEvents];
}

export interface RuntimeFixture {
  dir: string;
  workdir: string;
  storePath: string;
  waypoint: Waypoint;
  runtime: AgentRuntime;
  model: ScriptedModel;
  events: RecordedEvent[];
  close(): Promise<void>;
}

const EVENT_NAMES: Array<keyof RuntimeEvents> = [
  'turn-start',
  'message-part',
  'message-finish',
  'tool-start',
  'tool-end',
  'checkpoint-create',
  'save-point',
  'turn-end',
  'rewind',
  'fork',
  'task-start',
  'task-end',
  'scan-progress',
  'subagent-start',
  'subagent-end',
  'blobs-compress',
];

/**
 * A real store in `<tmp>/store/w.db` (or `layout.store`, relative to `<tmp>`), a real workspace
 * `<tmp>/project`, a runtime driven by a scripted model (`steps` may be a function of the temporary
 * directory, for scripts that name paths in it).
 */
export async function runtimeFixture(
  steps: unknown[] | ((dir: string) => unknown[]),
  options: Partial<RuntimeOptions> = {},
  layout: { store?: string } = {},
): Promise<RuntimeFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-runtime-'));
  const workdir = join(dir, 'project');
  mkdirSync(workdir, { recursive: true });
  const storePath = join(dir, layout.store ?? 'store/w.db');
  const waypoint = await openWaypoint({ path: storePath });
  const model = ScriptedModel.fromSteps(typeof steps === 'function' ? steps(dir) : steps);
  const runtime = createRuntime({ waypoint, model, maxRetries: 0, ...options });
  const events: RecordedEvent[] = [];
  for (const name of EVENT_NAMES) runtime.events.on(name, (event) => events.push({ name, event }));
  return {
    dir,
    workdir,
    storePath,
    waypoint,
    runtime,
    model,
    events,
    close: async () => {
      await runtime.close();
      await waypoint.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The parts of each message on the session's active path, as `role: type…` lines. */
export async function outline(waypoint: Waypoint, sessionId: string): Promise<string[]> {
  const path = await waypoint.store.history(sessionId);
  return path.map((message) => `${message.role}/${message.kind}/${message.status}: ${message.parts.map((part) => part.type).join(',')}`);
}
