export { sessionWorkspace, PRIMARY_ROOT } from './session-workspace.js';
