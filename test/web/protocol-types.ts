// Compile-time check that the browser's copy of the protocol's shapes (web/src/types.ts, kept apart
// so the page's bundle does not compile the engine) still accepts what the server sends: every
// assignment below fails `npm run typecheck` when a server view gains, renames or retypes a field
// the page reads. The page may read a subset, so the check runs one way: server → page.
import type { RewindTarget as ServerRewindTarget } from '../../src/history/rewind-targets.js';
import type { TurnSummary as ServerTurnSummary } from '../../src/checkpoint/index.js';
import type { FileRewindPreview as ServerPreview, ShellChange as ServerShellChange } from '../../src/rewind/files/file-rewind-types.js';
import type { PendingApproval as ServerApproval } from '../../src/server/effect-approvals.js';
import type { StartedTurn as ServerStartedTurn } from '../../src/server/action-methods.js';
import type { SessionTree as ServerSessionTree, TreeNode as ServerTreeNode } from '../../src/server/session-tree.js';
import type { ConversationPage as ServerPage, MessageView as ServerMessage, PartView as ServerPart, SessionInfo } from '../../src/server/views.js';
import type * as Web from '../../web/src/types.js';

type Accepts<Page, Server extends Page> = [Page, Server];

export type ProtocolShapes = [
  Accepts<Web.SessionRow, SessionInfo>,
  Accepts<Web.PartView, ServerPart>,
  Accepts<Web.MessageView, ServerMessage>,
  Accepts<Web.ConversationPage, ServerPage>,
  Accepts<Web.RewindTarget, ServerRewindTarget>,
  Accepts<Web.TurnSummary, ServerTurnSummary>,
  Accepts<Web.ShellChange, ServerShellChange>,
  Accepts<Web.FileRewindPreview, ServerPreview>,
  Accepts<Web.TreeNode, ServerTreeNode>,
  Accepts<Web.SessionTree, ServerSessionTree>,
  Accepts<Web.StartedTurn, ServerStartedTurn>,
  Accepts<Web.PendingApproval, ServerApproval>,
];
