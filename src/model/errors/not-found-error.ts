import { WaypointError } from './waypoint-error.js';

export type EntityKind = 'session' | 'message' | 'turn' | 'checkpoint' | 'blob' | 'journal' | 'part';

/**
 * An id that names nothing in the store. The code is `<KIND>_NOT_FOUND`
 * (`SESSION_NOT_FOUND`, `MESSAGE_NOT_FOUND`, `BLOB_NOT_FOUND` …).
 *
 * @example
 * if (WaypointError.is(error, 'SESSION_NOT_FOUND')) console.error(error.message);
 */
export class NotFoundError extends WaypointError {
  override readonly name: string = 'NotFoundError';
  readonly entity: EntityKind;
  readonly id: string;

  constructor(options: { entity: EntityKind; id: string; hint?: string; cause?: unknown }) {
    const hint = options.hint ?? defaultHint(options.entity);
    super({
      code: `${options.entity.toUpperCase()}_NOT_FOUND`,
      message: `No ${options.entity} with id "${options.id}".${hint ? ` ${hint}` : ''}`,
      details: { entity: options.entity, id: options.id },
      exitCode: 3,
      httpStatus: 404,
      cause: options.cause,
    });
    this.entity = options.entity;
    this.id = options.id;
  }
}

function defaultHint(entity: EntityKind): string {
  switch (entity) {
    case 'session':
      return 'List sessions with `waypoint sessions`.';
    case 'message':
      return "Show a session's messages with `waypoint show <session>`.";
    case 'checkpoint':
      return 'List checkpoints with `waypoint checkpoints <session>`.';
    default:
      return '';
  }
}
