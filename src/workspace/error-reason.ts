/** The errno code of a Node system error (`ENOENT` …), or else the error's message. */
export function errorReason(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.message : String(error);
}

/** True when `error` is a Node system error with one of the given errno codes. */
export function hasErrorCode(error: unknown, ...codes: string[]): boolean {
  return !!error && typeof error === 'object' && 'code' in error && codes.includes(error.code as string);
}
