// `waypoint serve`: the browser's protocol server (docs/protocol.md). JSON-RPC 2.0 over a WebSocket
// at /rpc and POST /rpc, the built UI's files, and the runtime's and other processes' changes as events.
export { startServer, METHODS, type ServeOptions, type RunningServer } from './serve.js';
export { handleRpc, errorBody, type Method, type RpcResponse } from './rpc.js';
export { newToken, tokenMatches, checkRequest, allowedHosts, RequestRefusedError } from './security.js';
export { EventHub, type EventClient } from './event-hub.js';
export { EffectApprovals, type ApprovalEvent, type PendingApproval } from './effect-approvals.js';
export { conversationPage, messageView, sessionInfo, type ConversationPage, type MessageView, type SessionInfo, type PartView } from './views.js';
export { sessionTree, type SessionTree, type TreeNode } from './session-tree.js';
export { ServerRequestError } from './server-errors.js';
export type { ServerContext } from './server-context.js';
