import { StoreError, WaypointError } from '../../model/index.js';

/** Where a failure happened, for its message: the redacted location and what was being done. */
export interface PgFailureContext {
  location: string;
  operation: string;
  /** The failure came while COMMIT was in flight: a lost connection then leaves the outcome unknown (`details.commitInFlight`). */
  commitInFlight?: boolean;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** SQLSTATEs after which the whole transaction may simply run again. */
export const RETRYABLE = new Set(['40001', '40P01']);

/**
 * Turns a failure of the PostgreSQL backend (a `pg` `DatabaseError` with its SQLSTATE, a socket
 * error, a connection that ended) into a typed `StoreError`; a `WaypointError` passes unchanged.
 * Messages name the redacted location only, never a password.
 */
export function mapPgFailure(error: unknown, context: PgFailureContext): unknown {
  if (error instanceof WaypointError) return error;
  const code = codeOf(error);
  const text = error instanceof Error ? error.message : String(error);
  const details = { location: context.location, operation: context.operation, sqlstate: code || null };
  const fail = (storeCode: StoreError['code'], message: string) => new StoreError({ code: storeCode, message, details, cause: error });
  if (code === '25006' || code === '42501') {
    return fail(
      'STORE_READ_ONLY',
      `Cannot ${context.operation}: the store ${context.location} is read-only for this role (${text}). Grant it write access or use a writable role.`,
    );
  }
  if (RETRYABLE.has(code) || code === '55P03' || code === '53300' || code === '57014') {
    return fail('STORE_BUSY', `Cannot ${context.operation}: the database of ${context.location} is busy (${text}). Try again.`);
  }
  if (code === '53100') {
    return fail('STORE_FULL', `Cannot ${context.operation}: the disk of the database server of ${context.location} is full; this step was not recorded.`);
  }
  if (
    code.startsWith('08') ||
    code.startsWith('57P') ||
    code === '28P01' ||
    code === '28000' ||
    code === '3D000' ||
    CONNECTION_CODES.has(code) ||
    isConnectionEnd(text)
  ) {
    if (context.commitInFlight) {
      return new StoreError({
        code: 'STORE_UNAVAILABLE',
        message: `Cannot ${context.operation}: the connection to the database server of ${context.location} broke while the step was being committed (${text}), so it may or may not have been recorded.`,
        details: { ...details, commitInFlight: true },
        cause: error,
      });
    }
    return fail(
      'STORE_UNAVAILABLE',
      `Cannot ${context.operation}: the database server of ${context.location} cannot be used right now (${text}). Nothing was changed by this step; try again once it is reachable.`,
    );
  }
  if (/^[0-9A-Z]{5}$/.test(code)) return fail('STORE_IO', `Cannot ${context.operation}: the database refused it (${text}).`);
  return error;
}

function isConnectionEnd(message: string): boolean {
  return /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection|Connection ended|timeout exceeded when trying to connect/i.test(
    message,
  );
}

export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : '';
}
