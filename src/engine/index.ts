export { openWaypoint, type OpenWaypointOptions, type Waypoint } from './open-waypoint.js';
export {
  defaultStorePath,
  defaultStoreLocation,
  resolveStoreLocation,
  isStoreFile,
  storeLabel,
  openStore,
  STORE_FILE_NAME,
  type OpenStoreOptions,
} from './store-location.js';
