import type { Store } from '../store/index.js';
import { MODEL_CHOICE_ENTRY } from '../fork/index.js';

/** The model a session last ran with, as its runtime recorded it. */
export interface SessionModel {
  /** The model string that chooses it again (`scripted:/abs/file`, `anthropic:<model>` …); null when the session's record predates it. */
  spec: string | null;
  /** What it was shown as. */
  label: string | null;
}

/** The model a session remembers (its last model-choice entry; a fork's is copied from its parent), or null when none was recorded. */
export async function sessionModel(store: Store, sessionId: string): Promise<SessionModel | null> {
  const [entry] = await store.listEntries(sessionId, { type: MODEL_CHOICE_ENTRY, last: 1 });
  if (!entry) return null;
  const { spec, model } = entry.data;
  return { spec: typeof spec === 'string' && spec !== '' ? spec : null, label: typeof model === 'string' ? model : null };
}
