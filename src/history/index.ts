export { SessionHistory } from './session-history.js';
export { readGitBranch } from './git-branch.js';
export { isOnActivePath } from './active-path.js';
export type { HistoryEvents } from './history-events.js';
export { CreateSessionRequest, AppendRequest, TitleRequest } from './history-schemas.js';
export { visibilityOf, coveredRange, isUserInput, type Visibility, type CoveredRange } from './message-visibility.js';
export { compactionOrder, compactedPositions, modelView, uiView } from './compaction-view.js';
export { listRewindTargets, inputText, type RewindTarget } from './rewind-targets.js';
export { EffectsLedger, type EffectCheck } from './effects-ledger.js';
