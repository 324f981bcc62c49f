export { SessionHistory } from './session-history.js';
export { readGitBranch } from './git-branch.js';
export type { HistoryEvents } from './history-events.js';
export { CreateSessionRequest, AppendRequest, TitleRequest } from './history-schemas.js';
