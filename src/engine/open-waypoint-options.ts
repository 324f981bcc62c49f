import { z } from 'zod';
import { count } from '../model/index.js';

/** What `openWaypoint` accepts, checked before anything is opened. */
export const OpenWaypointOptionsSchema = z
  .object({
    path: z.string().min(1, 'must be the path of the store file or a postgres:// URL').optional(),
    readOnly: z.boolean().optional(),
    busyTimeoutMs: count.optional(),
  })
  .loose();
