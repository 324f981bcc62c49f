import { UsageError } from './cli-errors.js';

/**
 * One flag of a command. `string` takes a value (`--limit 5`, `--limit=5`); `multiple` collects
 * every occurrence; `optional` takes a value only as `--flag=value` or when the next argument
 * looks like a path (contains `/`, or starts with `.` or `~`), so `--isolated latest` keeps
 * `latest` a positional.
 */
export type FlagSpec =
  | { type: 'boolean'; description: string; short?: string }
  | { type: 'string'; description: string; value: string; multiple?: false; short?: string }
  | { type: 'string'; description: string; value: string; multiple: true; short?: string }
  | { type: 'optional'; description: string; value: string };

export type FlagSpecs = Record<string, FlagSpec>;

type FlagValue<Spec extends FlagSpec> = Spec extends { type: 'boolean' }
  ? boolean
  : Spec extends { type: 'string'; multiple: true }
    ? string[]
    : Spec extends { type: 'optional' }
      ? string | true | undefined
      : string | undefined;

export type FlagValues<Specs extends FlagSpecs> = { [Name in keyof Specs]: FlagValue<Specs[Name]> };

export interface ParsedArgs<Specs extends FlagSpecs> {
  positionals: string[];
  flags: FlagValues<Specs>;
}

/** Flags every command takes. */
export const GLOBAL_FLAGS = {
  store: {
    type: 'string',
    value: 'file | url',
    description:
      'the store: a file, or postgres://user:password@host/db for a shared database (default: $WAYPOINT_STORE, else $WAYPOINT_HOME/waypoint.db, else ~/.waypoint/waypoint.db)',
  },
  json: { type: 'boolean', description: 'print one JSON document on stdout instead of text (errors too: { "error": { code, message, details } })' },
  help: { type: 'boolean', short: 'h', description: "print the command's reference" },
} as const satisfies FlagSpecs;

export type GlobalFlags = FlagValues<typeof GLOBAL_FLAGS>;

/**
 * Parses `argv` against `specs` (kebab-case names on the command line, as declared). Positionals
 * and flags may be interleaved; `--` ends flags. Tokens in `literal` are positionals even though
 * they start with `-` (`rewind <session> -h`). Unknown flags, missing values and values given to
 * boolean flags are usage errors.
 *
 * @example
 * parseArgs(['ses_1', '--limit', '5'], { limit: { type: 'string', value: 'n', description: '' } })
 * // { positionals: ['ses_1'], flags: { limit: '5' } }
 */
export function parseArgs<Specs extends FlagSpecs>(argv: readonly string[], specs: Specs, options: { literal?: ReadonlySet<string> } = {}): ParsedArgs<Specs> {
  const positionals: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    values[name] = spec.type === 'boolean' ? false : spec.type === 'string' && spec.multiple ? [] : undefined;
  }
  const byShort = new Map(Object.entries(specs).flatMap(([name, spec]) => ('short' in spec && spec.short ? [[spec.short, name] as const] : [])));
  let index = 0;
  while (index < argv.length) {
    const token = argv[index++]!;
    if (token === '--') {
      positionals.push(...argv.slice(index));
      break;
    }
    if (!token.startsWith('-') || token === '-' || options.literal?.has(token) || /^-\d/.test(token)) {
      positionals.push(token);
      continue;
    }
    const equals = token.indexOf('=');
    const raw = token.startsWith('--') ? token.slice(2, equals > 0 ? equals : undefined) : token.slice(1, equals > 0 ? equals : undefined);
    const inline = equals > 0 ? token.slice(equals + 1) : undefined;
    const name = token.startsWith('--') ? raw : byShort.get(raw);
    const spec = name === undefined ? undefined : specs[name];
    if (name === undefined || spec === undefined) throw new UsageError(`unknown option "${token.slice(0, equals > 0 ? equals : undefined)}"`);
    switch (spec.type) {
      case 'boolean':
        if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
        values[name] = true;
        break;
      case 'optional': {
        const next = argv[index];
        if (inline !== undefined) values[name] = requireValue(name, inline);
        else if (next !== undefined && looksLikePath(next)) values[name] = argv[index++]!;
        else values[name] = true;
        break;
      }
      case 'string': {
        let value = inline;
        if (value === undefined) {
          const next = argv[index];
          if (next === undefined || (next.startsWith('--') && next.length > 2)) throw new UsageError(`--${name} needs a ${spec.value}`);
          value = argv[index++]!;
        }
        value = requireValue(name, value);
        if (spec.multiple) (values[name] as string[]).push(value);
        else if (values[name] !== undefined) throw new UsageError(`--${name} given twice`);
        else values[name] = value;
        break;
      }
    }
  }
  return { positionals, flags: values as FlagValues<Specs> };
}

function requireValue(name: string, value: string): string {
  if (value === '') throw new UsageError(`--${name} needs a value`);
  return value;
}

function looksLikePath(token: string): boolean {
  return !token.startsWith('-') && (token.includes('/') || token.startsWith('.') || token.startsWith('~'));
}

/** A whole number ≥ `min` from a flag value, or a usage error naming the flag. */
export function integerFlag(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${name} must be a whole number of at least ${min}, not "${value}"`);
  return Number(value);
}

/** `path=choice` pairs (`--resolve README.md=merge`), checked against the allowed choices. */
export function keyValueFlags<Choice extends string>(
  name: string,
  values: readonly string[],
  choices: readonly Choice[],
): Array<{ key: string; choice: Choice }> {
  return values.map((value) => {
    const at = value.lastIndexOf('=');
    const key = at > 0 ? value.slice(0, at) : '';
    const choice = at > 0 ? value.slice(at + 1) : '';
    if (key === '' || !(choices as readonly string[]).includes(choice)) {
      throw new UsageError(`--${name} takes <path>=${choices.join('|')}, not "${value}"`);
    }
    return { key, choice: choice as Choice };
  });
}
