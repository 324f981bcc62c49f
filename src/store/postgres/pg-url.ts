import { InvalidArgumentError, StoreError } from '../../model/index.js';

/** The URL schemes the PostgreSQL backend serves. */
const POSTGRES_SCHEMES = new Set(['postgres:', 'postgresql:']);

/** A PostgreSQL store location, parsed: what `pg` connects with, and what may be shown. */
export interface PostgresLocation {
  /** The connection string `pg` gets (the `schema` parameter taken out). */
  connectionString: string;
  /** The schema the store's tables live in (`?schema=` in the URL, default `public`). */
  schema: string;
  /** The URL with its password replaced by `***`: the only form ever printed, logged or put in an error. */
  redacted: string;
}

/** Whether `location` is a URL (`scheme://…`) rather than a file path. */
export function isStoreUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location);
}

/** Whether `location` is a PostgreSQL URL (`postgres://…` or `postgresql://…`). */
export function isPostgresUrl(location: string): boolean {
  return isStoreUrl(location) && POSTGRES_SCHEMES.has(`${location.slice(0, location.indexOf(':')).toLowerCase()}:`);
}

/** `location` with any password in it replaced by `***` (works on text that is not a valid URL, too). */
export function redactStoreUrl(location: string): string {
  return location.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^/?#]*@/i, '$1:***@').replace(/([?&]password=)[^&#]*/gi, '$1***');
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Parses a `postgres://user:password@host:port/database?schema=name` URL. The optional `schema`
 * (lower-case letters, digits, `_`) lets several stores share one database; other parameters go
 * to `pg` as they are (`sslmode` …). Anything else is refused with a typed error whose message
 * never carries the password.
 */
export function parsePostgresUrl(location: string): PostgresLocation {
  const redacted = redactStoreUrl(location);
  if (!isPostgresUrl(location)) {
    throw new StoreError({
      code: 'STORE_URL_UNSUPPORTED',
      message: `Cannot open the store ${redacted}: only postgres:// and postgresql:// URLs name a database store. Give a file path for an SQLite store.`,
      details: { location: redacted },
    });
  }
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw new InvalidArgumentError({
      parameter: 'store',
      value: redacted,
      reason: `${redacted} is not a valid URL (postgres://user:password@host:port/database).`,
    });
  }
  const schema = url.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new InvalidArgumentError({
      parameter: 'schema',
      value: schema,
      reason: 'a store schema is lower-case letters, digits and underscores, starting with a letter or underscore (at most 63).',
    });
  }
  url.searchParams.delete('schema');
  return { connectionString: url.toString(), schema, redacted };
}
