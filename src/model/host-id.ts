import { hostname } from 'node:os';

/**
 * The name of this machine in records other machines may read (journals, write intents,
 * workspace locks): `$WAYPOINT_HOST_ID` when set, else the host name. Records of another host
 * are never recovered or taken over here (its processes cannot be checked from this machine), so
 * two machines sharing one store must have different ids; set the variable where host names
 * collide (containers cloned from one image, tests that play several machines on one).
 */
export function hostId(env: NodeJS.ProcessEnv = process.env): string {
  const id = env.WAYPOINT_HOST_ID?.trim();
  return id ? id : hostname();
}
