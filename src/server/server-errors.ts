import { WaypointError } from '../model/index.js';

/** A protocol request the server cannot serve as asked; nothing was changed. */
export class ServerRequestError extends WaypointError {
  override readonly name: string = 'ServerRequestError';
  constructor(
    code:
      | 'PREVIEW_NOT_FOUND'
      | 'NOT_A_SIDE_CHAT'
      | 'SOCKET_REQUIRED'
      | 'FILE_TOO_LARGE'
      | 'PART_NOT_FOUND'
      | 'NOT_A_FILE'
      | 'APPROVAL_NOT_FOUND'
      | 'APPROVALS_OFF'
      | 'NOT_A_DIRECTORY',
    message: string,
    details: Record<string, unknown> = {},
    httpStatus = 400,
  ) {
    super({ code, message, details, httpStatus, exitCode: 2 });
  }
}
