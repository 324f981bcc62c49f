import type { RpcClient } from './rpc.js';
import type {
  ConversationPage,
  FamilyNode,
  PartView,
  PendingApproval,
  RewindTarget,
  SessionRow,
  SessionTree,
  StartedTurn,
  TurnSummary,
  UndoPreview,
} from './types.js';

/** The protocol's methods (docs/protocol.md), typed for the page. */
export class Api {
  constructor(readonly rpc: RpcClient) {}

  listSessions(): Promise<{ sessions: SessionRow[]; nextBefore: number | null }> {
    return this.rpc.call('sessions.list', { limit: 500 });
  }

  createSession(workdir: string, title: string): Promise<{ session: SessionRow }> {
    return this.rpc.call('sessions.create', title.trim() === '' ? { workdir } : { workdir, title });
  }

  family(sessionId: string): Promise<{ root: FamilyNode }> {
    return this.rpc.call('session.family', { sessionId });
  }

  tree(sessionId: string): Promise<SessionTree> {
    return this.rpc.call('session.tree', { sessionId });
  }

  page(sessionId: string, options: { before?: number; limit?: number; at?: string } = {}): Promise<ConversationPage> {
    return this.rpc.call('conversation.page', { sessionId, ...options });
  }

  part(messageId: string, index: number): Promise<{ messageId: string; index: number; content: PartView & { output?: unknown } }> {
    return this.rpc.call('message.part', { messageId, index });
  }

  turnSummary(turnId: string): Promise<TurnSummary> {
    return this.rpc.call('turn.summary', { turnId });
  }

  rewindTargets(sessionId: string): Promise<{ sessionId: string; running: boolean; targets: RewindTarget[] }> {
    return this.rpc.call('rewind.list', { sessionId });
  }

  listWorkspace(
    sessionId: string,
    path = '',
  ): Promise<{ sessionId: string; workdir: string | null; path: string; entries: Array<{ name: string; kind: string; size: number }>; truncated: boolean }> {
    return this.rpc.call('workspace.list', { sessionId, path });
  }

  session(sessionId: string): Promise<{ session: SessionRow; model: { spec: string | null; label: string | null } | null; serverModel: string }> {
    return this.rpc.call('session.get', { sessionId });
  }

  pendingApprovals(sessionId: string): Promise<{ sessionId: string; approvals: PendingApproval[] }> {
    return this.rpc.call('effect.pending', { sessionId });
  }

  decideApproval(approvalId: string, decision: 'run' | 'deny'): Promise<{ approvalId: string; decision: string }> {
    return this.rpc.call('effect.decide', { approvalId, decision });
  }

  send(sessionId: string, text: string): Promise<StartedTurn> {
    return this.rpc.call('turn.send', { sessionId, text });
  }

  stop(sessionId: string): Promise<{ stopped: boolean }> {
    return this.rpc.call('turn.stop', { sessionId });
  }

  rewindConversation(sessionId: string, messageId: string): Promise<{ conversation?: { draft?: string } | null }> {
    return this.rpc.call('rewind.run', { sessionId, messageId, scope: 'conversation' });
  }

  previewUndo(sessionId: string, turnId: string, resolutions: Record<string, 'merge' | 'force' | 'skip'>, includeShellChanges: boolean): Promise<UndoPreview> {
    return this.rpc.call('undo.preview', { sessionId, turnId, resolutions, includeShellChanges });
  }

  applyUndo(sessionId: string, previewId: string): Promise<{ files?: { rewindId?: string | null; skipped?: string[] } | null; [key: string]: unknown }> {
    return this.rpc.call('undo.apply', { sessionId, previewId });
  }

  redo(sessionId: string, rewindId: string | undefined): Promise<unknown> {
    return this.rpc.call('redo.apply', rewindId ? { sessionId, rewindId } : { sessionId });
  }

  edit(sessionId: string, messageId: string, text: string, workspace: 'preserve' | 'rewind'): Promise<StartedTurn> {
    return this.rpc.call('edit', { sessionId, messageId, text, workspace });
  }

  retry(sessionId: string, messageId: string): Promise<StartedTurn> {
    return this.rpc.call('retry', { sessionId, messageId });
  }

  fork(sessionId: string, messageId: string, mode: 'shared' | 'isolated'): Promise<{ session: SessionRow; workdir: string | null }> {
    return this.rpc.call('fork.create', { from: 'stable', sessionId, messageId, workspace: { mode } });
  }

  startSide(sessionId: string): Promise<{ session: SessionRow }> {
    return this.rpc.call('side.start', { sessionId });
  }

  askSide(sessionId: string, text: string): Promise<StartedTurn> {
    return this.rpc.call('side.ask', { sessionId, text });
  }

  subscribe(sessionId: string): Promise<unknown> {
    return this.rpc.call('session.subscribe', { sessionId });
  }

  unsubscribe(sessionId: string): Promise<unknown> {
    return this.rpc.call('session.unsubscribe', { sessionId });
  }
}

/** A refusal in words: the server's message, with its stable code. */
export function describeError(error: unknown): string {
  if (error && typeof error === 'object' && 'waypointCode' in error) {
    const { waypointCode, message } = error as { waypointCode: string | null; message: string };
    return waypointCode ? `${message} (${waypointCode})` : message;
  }
  return error instanceof Error ? error.message : String(error);
}
