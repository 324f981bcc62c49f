import { randomUUID } from 'node:crypto';
import type { Waypoint } from '../engine/index.js';
import type { FileRewindPreview } from '../rewind/index.js';
import type { AgentRuntime } from '../runtime/index.js';
import type { EffectApprovals } from './effect-approvals.js';
import type { EventClient, EventHub } from './event-hub.js';
import type { RewindLists } from './rewind-list.js';
import { ServerRequestError } from './server-errors.js';

/** What every method runs with: the engine, the runtime, the event hub, and the socket asking (null over HTTP). */
export interface ServerContext {
  waypoint: Waypoint;
  runtime: AgentRuntime;
  hub: EventHub;
  previews: PreviewCache;
  rewindLists: RewindLists;
  /** The runtime's approvals of external calls, when the runtime asks through this server (null: it does not). */
  approvals: EffectApprovals | null;
  info: { version: string; model: string; store: string };
  client: EventClient | null;
}

const PREVIEW_TTL_MS = 10 * 60 * 1000;
const MAX_PREVIEWS = 100;

/**
 * Checked previews handed to the browser by id, so `undo.apply` applies exactly the preview the
 * person saw (the operation re-checks each file against it). Ten minutes, the newest hundred.
 */
export class PreviewCache {
  private readonly previews = new Map<string, { preview: FileRewindPreview; at: number }>();

  put(preview: FileRewindPreview): string {
    const now = Date.now();
    for (const [id, entry] of this.previews) if (now - entry.at > PREVIEW_TTL_MS) this.previews.delete(id);
    while (this.previews.size >= MAX_PREVIEWS) this.previews.delete(this.previews.keys().next().value!);
    const id = `pv_${randomUUID()}`;
    this.previews.set(id, { preview, at: now });
    return id;
  }

  get(id: string, sessionId: string): FileRewindPreview {
    const entry = this.previews.get(id);
    if (!entry || Date.now() - entry.at > PREVIEW_TTL_MS || entry.preview.sessionId !== sessionId) {
      throw new ServerRequestError(
        'PREVIEW_NOT_FOUND',
        `No preview "${id}" for session ${sessionId}: preview again (undo.preview); previews last 10 minutes.`,
        { previewId: id },
        404,
      );
    }
    return entry.preview;
  }
}
