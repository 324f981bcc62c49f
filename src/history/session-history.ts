import { EventBus, InvalidArgumentError, type MessageWithParts, type PartContent, type Session } from '../model/index.js';
import type { ForkSessionInput, ForkSessionResult, HistoryOptions, MoveHeadInput, MoveHeadResult, Store } from '../store/store.js';
import { isOnActivePath } from './active-path.js';
import { readGitBranch } from './git-branch.js';
import type { HistoryEvents } from './history-events.js';
import { HistoryOptionsSchema, HistoryStoreSchema, IdArgument, MoveHeadInputSchema, StartSessionAtInputSchema } from './history-entry-schemas.js';
import { AppendRequest, CreateSessionRequest, parseInput, TitleRequest } from './history-schemas.js';

/**
 * The conversation tree as a library: sessions, appends, reads of the active path, head moves and
 * sessions started at an existing message. Inputs are validated here (the library boundary); every
 * event is emitted after the store committed.
 *
 * @example
 * const history = new SessionHistory(store);
 * const session = await history.createSession({ title: 'Fix the parser', workdir: process.cwd() });
 * await history.append(session.id, { role: 'user', parts: [{ type: 'text', text: 'Why does it fail?' }] });
 * const messages = await history.history(session.id);
 */
export class SessionHistory {
  readonly events: EventBus<HistoryEvents>;

  constructor(
    readonly store: Store,
    options: { events?: EventBus<HistoryEvents> } = {},
  ) {
    parseInput(HistoryStoreSchema, store, 'store');
    this.events = options.events ?? new EventBus<HistoryEvents>();
  }

  /** A new main session; the git branch of `workdir` is captured when it is a repository. */
  async createSession(request: CreateSessionRequest = {}): Promise<Session> {
    const input = parseInput(CreateSessionRequest, request, 'session');
    const workdir = input.workdir ?? null;
    const gitBranch = workdir !== null && input.detectGitBranch !== false ? readGitBranch(workdir) : null;
    const session = await this.store.createSession({
      workdir,
      gitBranch,
      ...(input.title === undefined ? {} : { title: input.title }),
      ...(input.metadata === undefined ? {} : { metadata: input.metadata as Session['metadata'] }),
    });
    this.events.emit('session-create', { session });
    return session;
  }

  getSession(sessionId: string): Promise<Session> {
    return this.store.getSession(sessionId);
  }

  async setTitle(sessionId: string, title: string): Promise<Session> {
    const session = await this.store.setTitle(sessionId, parseInput(TitleRequest, title, 'title'));
    this.events.emit('session-title', { session });
    return session;
  }

  /** Append a message under the session's head; the head moves to it. */
  async append(sessionId: string, request: AppendRequest): Promise<MessageWithParts> {
    const input = parseInput(AppendRequest, request, 'message');
    const { message } = await this.store.appendMessage({
      sessionId,
      role: input.role,
      parts: input.parts as PartContent[],
      ...(input.kind === undefined ? {} : { kind: input.kind }),
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.turnId === undefined ? {} : { turnId: input.turnId }),
      ...(input.metadata === undefined ? {} : { metadata: input.metadata as MessageWithParts['metadata'] }),
      ...(input.expectedHeadId === undefined ? {} : { expectedHeadId: input.expectedHeadId }),
    });
    this.events.emit('message-append', { sessionId, message });
    return message;
  }

  /** The active path, root to head. `{ parts: 'none' }` lists without loading part payloads. */
  async history(sessionId: string, options: HistoryOptions = {}): Promise<MessageWithParts[]> {
    parseInput(IdArgument, sessionId, 'sessionId');
    parseInput(HistoryOptionsSchema, options, 'options');
    validateHistoryOptions(options);
    return this.store.history(sessionId, options);
  }

  /** True when `messageId` is on the session's active path (cost: its distance from the head). */
  async isOnActivePath(sessionId: string, messageId: string): Promise<boolean> {
    parseInput(IdArgument, sessionId, 'sessionId');
    parseInput(IdArgument, messageId, 'messageId');
    const [session, message] = await Promise.all([this.store.getSession(sessionId), this.store.getMessage(messageId, { parts: 'none' })]);
    return isOnActivePath(this.store, session, message);
  }

  /** Move the head (rewind, redo …); recorded as a `head-move` entry. */
  async moveHead(input: MoveHeadInput): Promise<MoveHeadResult> {
    parseInput(MoveHeadInputSchema, input, 'input');
    const result = await this.store.moveHead(input);
    this.events.emit('head-move', result);
    return result;
  }

  /** A new session pointing at `at` in the parent's tree; ancestors are shared, not copied. */
  async startSessionAt(input: ForkSessionInput): Promise<ForkSessionResult> {
    parseInput(StartSessionAtInputSchema, input, 'input');
    const result = await this.store.forkSession(input);
    if (result.created) this.events.emit('session-fork', { session: result.session, parentSessionId: input.parentSessionId, at: input.at });
    return result;
  }
}

function validateHistoryOptions(options: HistoryOptions): void {
  for (const key of ['fromDepth', 'toDepth', 'last'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new InvalidArgumentError({ parameter: key, value, reason: 'must be a non-negative integer.' });
    }
  }
  if (options.parts !== undefined && options.parts !== 'full' && options.parts !== 'none') {
    throw new InvalidArgumentError({ parameter: 'parts', value: options.parts, reason: "must be 'full' or 'none'." });
  }
}
