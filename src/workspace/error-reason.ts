/** The errno code of a Node system error (`ENOENT` …), or else the error's message. */
export function errorReason(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.message : String(error);
}

/** True when `error` is a Node system error with one of the given errno codes. */
export function hasErrorCode(error: unknown, ...codes: string[]): boolean {
  return !!error && typeof error === 'object' && 'code' in error && codes.includes(error.code as string);
}

/** A plain-words reading of the errno codes a person can act on, for error messages. */
export function explainReason(reason: string): string | null {
  switch (reason) {
    case 'ENAMETOOLONG':
      return 'a name in the path is longer than 255 bytes, or the whole path longer than the system resolves';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'the disk is full';
    case 'EROFS':
      return 'the file system is read-only';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return null;
  }
}
