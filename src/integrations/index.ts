// Waypoint inside agents people already run: each agent's integration in its own folder.
export * from './claude/index.js';
