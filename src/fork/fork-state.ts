import type { Entry, JsonObject, JsonValue, Message } from '../model/index.js';
import type { NewEntry, Store } from '../store/store.js';

/**
 * Per-session state a fork copies, as entries (ancestors are shared, small state is
 * copied). The conventions this module defines and reads:
 *
 * - **Model selection**: the latest `model-choice` entry (`data` is the runtime's, e.g.
 *   `{ provider, model }`); copied whole, with `copiedFrom: { sessionId, entryId }` added.
 * - **Execution state** lives on assistant messages: `message.metadata.executionState`, a JSON
 *   object the runtime writes on each reply (permission mode, plan mode, working directory …).
 *   A fork takes the one on the **last assistant message in its range** — not the parent's current
 *   state, which may belong to a later turn — and writes it as an `execution-state` entry
 *   `{ state, sourceMessageId }`.
 * - **Goal**: `goal` entries, `data.goal` = `{ id, objective, status, …, run? }` or null (cleared).
 *   `goal.run` holds the **active-run fields** — what belongs only to the parent's in-flight pursuit
 *   of the goal (run id, lease, start time, usage so far); a fork copies the goal without `run`.
 *   The goal copied is the latest set at the fork point (see `goalAt`).
 * - **Verification records**: `verification` entries with `data.messageId`, the message the check
 *   verified. A fork copies those whose message is on its inherited path (before the boundary).
 * - Not copied: todo lists (`todo`), queued input (`queued-input`), checkpoints, file rewinds,
 *   save points, head moves; a side chat copies neither goals nor verification records.
 */
export const GOAL_ENTRY = 'goal';
export const VERIFICATION_ENTRY = 'verification';
export const MODEL_CHOICE_ENTRY = 'model-choice';
export const EXECUTION_STATE_ENTRY = 'execution-state';
/** The goal field holding the parent's active run; never copied into a fork. */
export const GOAL_ACTIVE_RUN_FIELD = 'run';

/** The execution state recorded on a message (`metadata.executionState`), if any. */
export function executionStateOf(message: Pick<Message, 'metadata'>): JsonObject | null {
  const state = message.metadata.executionState;
  return state !== null && typeof state === 'object' && !Array.isArray(state) ? state : null;
}

/** A goal snapshot without its active-run fields (null stays null). */
export function withoutActiveRun(goal: JsonValue | undefined): JsonValue {
  if (goal === null || goal === undefined || typeof goal !== 'object' || Array.isArray(goal)) return goal ?? null;
  const { [GOAL_ACTIVE_RUN_FIELD]: _run, ...rest } = goal;
  return rest;
}

/**
 * The execution state on the last assistant message of the path ending at `at`, reading back in
 * windows so the cost is the distance to that message, not the history length.
 */
export async function lastExecutionState(store: Store, at: Message | null): Promise<{ state: JsonObject; sourceMessageId: string } | null> {
  if (at === null) return null;
  const window = 256;
  for (let toDepth = at.depth + 1; toDepth > 0; toDepth -= window) {
    const fromDepth = Math.max(0, toDepth - window);
    const messages = await store.pathTo(at.id, { fromDepth, toDepth, parts: 'none', roles: ['assistant'] });
    for (let index = messages.length - 1; index >= 0; index--) {
      const state = executionStateOf(messages[index]!);
      if (state) return { state, sourceMessageId: messages[index]!.id };
    }
  }
  return null;
}

/** The latest goal entry recorded at or before `moment` (ms). */
export function goalAt(goals: readonly Entry[], moment: number): Entry | null {
  return goals.filter((entry) => entry.createdAt <= moment).at(-1) ?? null;
}

/** Whether each message id lies on the path root → `at` (one bounded read per distinct depth). */
export async function onPath(store: Store, at: Message | null, messageIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  if (at === null || messageIds.length === 0) return found;
  const unique = [...new Set(messageIds)];
  const messages = await Promise.all(unique.map((messageId) => store.findMessage(messageId)));
  for (const message of messages) {
    if (!message || message.treeId !== at.treeId || message.depth > at.depth) continue;
    const [onThePath] = await store.pathTo(at.id, { fromDepth: message.depth, toDepth: message.depth + 1, parts: 'none' });
    if (onThePath?.id === message.id) found.add(message.id);
  }
  return found;
}

export interface CopiedState {
  entries: NewEntry[];
  /** What was copied, for the result and the `fork-origin` entry. */
  summary: { modelChoice: boolean; executionState: string | null; goal: boolean; verifications: number };
}

/**
 * The entries a fork writes into its child: model choice, execution state of its range, and —
 * unless it is a side chat — the goal at the fork point (active-run fields cleared) and the
 * verification records of its inherited path. `pinned` is a stable boundary's goal snapshot.
 */
export async function copiedState(
  store: Store,
  input: {
    parentSessionId: string;
    /** The last inherited message (the child's fork point), null for an empty history. */
    at: Message | null;
    moment: number;
    sideChat: boolean;
    pinned?: { goal: JsonValue; verificationEntryIds: string[] } | null;
  },
): Promise<CopiedState> {
  const entries: NewEntry[] = [];
  const summary: CopiedState['summary'] = { modelChoice: false, executionState: null, goal: false, verifications: 0 };
  const [modelChoice] = await store.listEntries(input.parentSessionId, { type: MODEL_CHOICE_ENTRY, last: 1 });
  if (modelChoice) {
    entries.push({ type: MODEL_CHOICE_ENTRY, data: { ...modelChoice.data, copiedFrom: { sessionId: input.parentSessionId, entryId: modelChoice.id } } });
    summary.modelChoice = true;
  }
  const execution = await lastExecutionState(store, input.at);
  if (execution) {
    entries.push({ type: EXECUTION_STATE_ENTRY, data: { state: execution.state, sourceMessageId: execution.sourceMessageId } });
    summary.executionState = execution.sourceMessageId;
  }
  if (input.sideChat) return { entries, summary };

  const goals = await store.listEntries(input.parentSessionId, { type: GOAL_ENTRY });
  let goal: JsonValue | undefined;
  let goalSource: string | null = null;
  if (input.pinned) {
    goal = input.pinned.goal;
  } else {
    const entry = goalAt(goals, input.moment);
    if (entry) {
      goal = entry.data.goal ?? null;
      goalSource = entry.id;
    }
  }
  if (goal !== undefined && goal !== null) {
    entries.push({ type: GOAL_ENTRY, data: { goal: withoutActiveRun(goal), copiedFrom: { sessionId: input.parentSessionId, entryId: goalSource } } });
    summary.goal = true;
  }

  const verifications = await store.listEntries(input.parentSessionId, { type: VERIFICATION_ENTRY });
  const candidates = input.pinned
    ? verifications.filter((entry) => input.pinned!.verificationEntryIds.includes(entry.id))
    : verifications.filter((entry) => typeof entry.data.messageId === 'string');
  const inherited = input.pinned
    ? null
    : await onPath(
        store,
        input.at,
        candidates.map((entry) => entry.data.messageId as string),
      );
  for (const entry of candidates) {
    if (inherited && !inherited.has(entry.data.messageId as string)) continue;
    entries.push({ type: VERIFICATION_ENTRY, data: { ...entry.data, copiedFrom: { sessionId: input.parentSessionId, entryId: entry.id } } });
    summary.verifications++;
  }
  return { entries, summary };
}
