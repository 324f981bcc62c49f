/** The per-session records besides messages and entries, one file per kind. */
export { createTurn, updateTurn, getTurn, listTurns } from './turns.js';
export { addCheckpoints, getCheckpoint, listCheckpoints } from './checkpoints.js';
export { createJournal, syncJournal, setJournalState, getJournal, listJournals } from './journals.js';
export { appendEffect, listEffects, getCommandFact, putCommandFact, blobRoots } from './ledgers.js';
export { setBlobPins, addBlobPins } from './pin-sets.js';
