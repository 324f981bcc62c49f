import { describe, expect, it } from 'vitest';
import { BlobCorruptError, ConflictError, InvalidArgumentError, NotFoundError, StoreError, WaypointError } from './index.js';

describe('WaypointError family', () => {
  it('each error knows its stable code, exit code and HTTP status', () => {
    const cases: Array<[WaypointError, string, number, number]> = [
      [new InvalidArgumentError({ parameter: 'title', value: '', reason: 'cannot be empty.' }), 'INVALID_ARGUMENT', 2, 400],
      [new NotFoundError({ entity: 'session', id: 'ses_x' }), 'SESSION_NOT_FOUND', 3, 404],
      [new ConflictError({ code: 'HEAD_MOVED', message: 'moved' }), 'HEAD_MOVED', 4, 409],
      [new StoreError({ code: 'STORE_BUSY', message: 'busy' }), 'STORE_BUSY', 5, 503],
      [new StoreError({ code: 'STORE_READ_ONLY', message: 'ro' }), 'STORE_READ_ONLY', 5, 500],
      [new BlobCorruptError({ hash: 'abc', reason: 'hash mismatch' }), 'BLOB_CORRUPT', 6, 500],
    ];
    for (const [error, code, exitCode, httpStatus] of cases) {
      expect(error).toBeInstanceOf(WaypointError);
      expect(error).toBeInstanceOf(Error);
      expect({ code: error.code, exitCode: error.exitCode, httpStatus: error.httpStatus }).toEqual({ code, exitCode, httpStatus });
    }
  });

  it('builds its message from structured fields and keeps the cause', () => {
    const cause = new Error('disk');
    const error = new NotFoundError({ entity: 'message', id: 'msg_1', cause });
    expect(error.message).toBe('No message with id "msg_1". Show a session\'s messages with `waypoint show <session>`.');
    expect(error.details).toEqual({ entity: 'message', id: 'msg_1' });
    expect(error.cause).toBe(cause);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'MESSAGE_NOT_FOUND', message: error.message, details: error.details });
    expect(WaypointError.is(error, 'MESSAGE_NOT_FOUND')).toBe(true);
    expect(WaypointError.is(error, 'SESSION_NOT_FOUND')).toBe(false);
    expect(WaypointError.is(cause)).toBe(false);
  });
});
