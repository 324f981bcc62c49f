export { openWaypoint, type OpenWaypointOptions, type Waypoint } from './open-waypoint.js';
export { defaultStorePath, STORE_FILE_NAME } from './store-location.js';
