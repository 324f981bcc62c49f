import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { displayPath } from '../checkpoint/index.js';
import type { AgentRuntime, RuntimeEvents } from '../runtime/index.js';
import type { Store } from '../store/index.js';
import { messageView, sessionInfo } from './views.js';

/** An open socket: where its notifications go and which sessions it follows. */
export interface EventClient {
  send(notification: string): void;
  readonly sessions: Set<string>;
}

type Payload = Record<string, unknown> & { type: string };

/**
 * Sends the runtime's events (and the operations', which the runtime forwards) to every socket
 * subscribed to their session, and finds changes other processes made to the store: announced by
 * the store where it can (PostgreSQL), else seen by watching the database's directory (a 1 s poll
 * is the fallback); each followed session's stored state is then compared with what was last seen,
 * and a difference becomes `session.changed`.
 */
export class EventHub {
  private readonly clients = new Set<EventClient>();
  private readonly offs: Array<() => void> = [];
  /** Each followed session's last seen state, and whether this server changed it since. */
  private readonly seen = new Map<string, { state: string; touched: boolean }>();
  private sessionsState: string | null = null;
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => Promise<void>) | null = null;
  private checking: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly runtime: AgentRuntime,
  ) {
    this.forward();
  }

  add(client: EventClient): void {
    this.clients.add(client);
  }

  remove(client: EventClient): void {
    this.clients.delete(client);
  }

  /** Whether an open socket follows the session (someone could answer it). */
  followed(sessionId: string): boolean {
    return [...this.clients].some((client) => client.sessions.has(sessionId));
  }

  /** Sends an event of the server's own (not the runtime's) to the session's followers. */
  notify(sessionId: string, payload: Payload): void {
    this.toSession(sessionId, payload);
  }

  async follow(sessionId: string): Promise<void> {
    if (!this.seen.has(sessionId)) this.seen.set(sessionId, { state: await this.stateOf(sessionId), touched: false });
  }

  /**
   * Starts watching the store for changes made by other processes: a store that announces its
   * commits (PostgreSQL's LISTEN/NOTIFY, across machines) is subscribed to; otherwise its
   * database's directory is watched, with a poll every `pollMs`.
   */
  async start(pollMs = 1000): Promise<void> {
    this.sessionsState = await this.sessionsFingerprint();
    if (this.store.subscribeChanges) {
      this.unsubscribe = await this.store.subscribeChanges(() => void this.check());
      return;
    }
    try {
      this.watcher = watch(dirname(this.store.location), () => this.check());
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = null;
      });
    } catch {
      this.watcher = null; // the poll still runs
    }
    this.timer = setInterval(() => this.check(), pollMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const off of this.offs) off();
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
    await this.unsubscribe?.();
    await this.checking;
  }

  /** Compares followed sessions with the store now (coalesced: one check at a time, one queued). */
  check(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.checking) {
      this.again = true;
      return this.checking;
    }
    this.checking = this.compare()
      .catch(() => {})
      .finally(() => {
        this.checking = null;
        if (this.again) {
          this.again = false;
          void this.check();
        }
      });
    return this.checking;
  }

  private async compare(): Promise<void> {
    const sessions = await this.sessionsFingerprint();
    if (sessions !== this.sessionsState) {
      this.sessionsState = sessions;
      this.broadcast({ type: 'sessions.changed' });
    }
    for (const [sessionId, last] of this.seen) {
      if (![...this.clients].some((client) => client.sessions.has(sessionId))) continue;
      const state = await this.stateOf(sessionId);
      if (state === last.state) continue;
      const origin = last.touched ? 'server' : 'external';
      this.seen.set(sessionId, { state, touched: false });
      const session = await this.store.findSession(sessionId);
      this.toSession(sessionId, {
        type: 'session.changed',
        sessionId,
        origin,
        session: session && sessionInfo(session, this.runtime.isRunning(sessionId)),
      });
    }
  }

  private async sessionsFingerprint(): Promise<string> {
    const sessions = await this.store.listSessions();
    return `${sessions.length}:${sessions.reduce((max, session) => Math.max(max, session.createdAt), 0)}:${sessions.map((session) => session.title.length).reduce((a, b) => a + b, 0)}`;
  }

  /** What marks a session changed: head, branch generation, title, last entry, last checkpoint, turns and their states. */
  private async stateOf(sessionId: string): Promise<string> {
    const session = await this.store.findSession(sessionId);
    if (!session) return 'gone';
    const [entries, checkpoints, turns] = await Promise.all([
      this.store.listEntries(sessionId, { last: 1 }),
      this.store.listCheckpoints(sessionId, { last: 1 }),
      this.store.listTurns(sessionId),
    ]);
    return JSON.stringify([
      session.headMessageId,
      session.branchGeneration,
      session.title,
      entries[0]?.seq ?? 0,
      checkpoints[0]?.seq ?? 0,
      turns.length,
      turns.at(-1)?.status ?? null,
    ]);
  }

  private broadcast(payload: Payload): void {
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'event', params: payload });
    for (const client of this.clients) client.send(text);
  }

  private toSession(sessionId: string, payload: Payload): void {
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'event', params: payload });
    for (const client of this.clients) if (client.sessions.has(sessionId)) client.send(text);
  }

  /** A change this server made: sent now, and not reported again as another process's. */
  private local(sessionId: string, payload: Payload): void {
    const last = this.seen.get(sessionId);
    if (last) last.touched = true;
    this.toSession(sessionId, payload);
  }

  private on<Name extends keyof RuntimeEvents>(name: Name, map: (event: RuntimeEvents[Name]) => Payload & { sessionId: string }): void {
    this.offs.push(
      this.runtime.events.on(name, (event) => {
        const payload = map(event);
        this.local(payload.sessionId, payload);
        // A subagent's events belong to the parent's turn; they also reach those following its transcript.
        const sub = (event as { subagent?: { sessionId: string } }).subagent;
        if (sub && sub.sessionId !== payload.sessionId) this.toSession(sub.sessionId, payload);
      }),
    );
  }

  private forward(): void {
    const running = (sessionId: string) => this.runtime.isRunning(sessionId);
    this.on('turn-start', (event) => ({
      type: 'turn.start',
      sessionId: event.sessionId,
      turnId: event.turnId,
      ...sub(event),
      input: messageView(event.input, { compacted: false, summaryOf: null }),
    }));
    this.on('message-part', (event) => ({
      type: 'message.part',
      sessionId: event.sessionId,
      turnId: event.turnId,
      ...sub(event),
      messageId: event.messageId,
      partIndex: event.partIndex,
      partType: event.type,
      delta: event.delta,
    }));
    this.on('message-finish', (event) => ({
      type: 'message.finish',
      sessionId: event.sessionId,
      turnId: event.turnId,
      ...sub(event),
      message: messageView(event.message, { compacted: false, summaryOf: null }),
    }));
    this.on('tool-start', (event) => ({
      type: 'tool.start',
      sessionId: event.sessionId,
      turnId: event.turnId,
      ...sub(event),
      toolCallId: event.toolCallId,
      toolName: event.toolName,
      input: event.input,
      effect: event.effect,
    }));
    this.on('tool-end', (event) => ({
      type: 'tool.end',
      sessionId: event.sessionId,
      turnId: event.turnId,
      ...sub(event),
      toolCallId: event.toolCallId,
      toolName: event.toolName,
      messageId: event.messageId,
      isError: event.output.type === 'error-text',
      checkpointIds: event.checkpointIds,
    }));
    this.on('checkpoint-create', ({ checkpoint, ...event }) => ({
      type: 'checkpoint.create',
      sessionId: event.sessionId,
      turnId: event.turnId,
      ...sub(event),
      checkpoint: {
        id: checkpoint.id,
        seq: checkpoint.seq,
        op: checkpoint.op,
        path: checkpoint.path,
        displayPath: displayPath(checkpoint.path),
        toPath: checkpoint.toPath,
        source: checkpoint.source,
        toolName: checkpoint.toolName,
      },
    }));
    this.on('turn-end', (event) => ({
      type: 'turn.end',
      sessionId: event.sessionId,
      turnId: event.turnId,
      ...sub(event),
      status: event.status,
      finalMessageId: event.finalMessageId,
      summary: event.summary,
      error: event.error,
    }));
    this.on('rewind', (event) => ({
      type: 'rewind',
      sessionId: event.sessionId,
      kind: event.kind,
      session: sessionInfo(event.session, running(event.sessionId)),
      result: event.result,
    }));
    this.on('fork', (event) => ({ type: 'fork', sessionId: event.sessionId, result: event.result }));
    this.on('conversation-compact', (event) => ({ type: 'compact', sessionId: event.sessionId, error: event.error }));
    this.on('task-start', (event) => ({ type: 'task.start', ...event }));
    this.on('task-end', (event) => ({ type: 'task.end', ...event }));
    // A fork adds a session: every tab's list changes.
    this.offs.push(this.runtime.events.on('fork', () => void this.check()));
  }
}

function sub(event: { subagent?: { toolCallId: string; sessionId: string } }): { subagent?: { toolCallId: string; sessionId: string } } {
  return event.subagent ? { subagent: event.subagent } : {};
}
