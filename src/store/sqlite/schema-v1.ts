/**
 * Schema version 1. Messages, parts, entries, checkpoints and effects are append-only: triggers
 * refuse updates (deletes stay possible for explicit session deletion and GC). The only update a
 * message or its parts accept is while the message is still streaming.
 */
export const SCHEMA_V1_SQL = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('main', 'fork', 'side_chat')),
  tree_id TEXT NOT NULL,
  parent_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
  root_session_id TEXT NOT NULL,
  forked_from_message_id TEXT,
  head_message_id TEXT REFERENCES messages(id),
  branch_generation INTEGER NOT NULL DEFAULT 0,
  title TEXT NOT NULL,
  workdir TEXT,
  git_branch TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX sessions_parent ON sessions(parent_session_id);
CREATE INDEX sessions_root ON sessions(root_session_id);
CREATE INDEX sessions_tree ON sessions(tree_id);
CREATE INDEX sessions_created ON sessions(created_at);

-- seq/parent_seq are integer twins of id/parent_id: history walks follow rowids, the fastest
-- lookup SQLite has. Rows stay small (part_meta holds part types and sizes); the content lives in
-- message_parts under the same rowid, so listing a history never reads a payload page.
CREATE TABLE messages (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  tree_id TEXT NOT NULL,
  parent_seq INTEGER REFERENCES messages(seq),
  parent_id TEXT,
  session_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
  kind TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('complete', 'streaming', 'error', 'interrupted')),
  turn_id TEXT,
  depth INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  part_meta TEXT NOT NULL
);
CREATE INDEX messages_parent ON messages(parent_seq);
CREATE INDEX messages_tree ON messages(tree_id);
CREATE INDEX messages_session ON messages(session_id);
CREATE INDEX messages_turn ON messages(turn_id) WHERE turn_id IS NOT NULL;

-- the parts of a message as one JSON array, keyed by the message's seq
CREATE TABLE message_parts (
  seq INTEGER PRIMARY KEY REFERENCES messages(seq) ON DELETE CASCADE,
  parts TEXT NOT NULL
);

-- blobs that message parts refer to (large tool outputs kept in the blob store): GC roots
CREATE TABLE message_blobs (
  message_seq INTEGER NOT NULL REFERENCES messages(seq) ON DELETE CASCADE,
  hash TEXT NOT NULL,
  PRIMARY KEY (message_seq, hash)
) WITHOUT ROWID;
CREATE INDEX message_blobs_hash ON message_blobs(hash);

CREATE TABLE entries (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  data TEXT NOT NULL,
  UNIQUE (session_id, seq)
);
CREATE INDEX entries_type ON entries(session_id, type, seq);

CREATE TABLE turns (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  user_message_id TEXT NOT NULL REFERENCES messages(id),
  status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'interrupted', 'error')),
  branch_generation INTEGER NOT NULL,
  boundary TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  started_at INTEGER NOT NULL,
  ended_at INTEGER
);
CREATE INDEX turns_session ON turns(session_id, started_at);

CREATE TABLE checkpoints (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  turn_id TEXT,
  anchor_message_id TEXT,
  op TEXT NOT NULL,
  path TEXT NOT NULL,
  to_path TEXT,
  before_hash TEXT,
  after_hash TEXT,
  before_mode INTEGER,
  after_mode INTEGER,
  source TEXT NOT NULL CHECK (source IN ('tool', 'fs', 'exec')),
  tool_name TEXT,
  tool_call_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('recorded', 'skipped')),
  skip_reason TEXT,
  created_at INTEGER NOT NULL,
  patch TEXT,
  UNIQUE (session_id, seq)
);
CREATE INDEX checkpoints_turn ON checkpoints(turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX checkpoints_anchor ON checkpoints(anchor_message_id) WHERE anchor_message_id IS NOT NULL;
CREATE INDEX checkpoints_before ON checkpoints(before_hash) WHERE before_hash IS NOT NULL;
CREATE INDEX checkpoints_after ON checkpoints(after_hash) WHERE after_hash IS NOT NULL;

CREATE TABLE journals (
  id TEXT PRIMARY KEY,
  session_id TEXT,
  kind TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'committed', 'rolled_back')),
  root TEXT NOT NULL,
  items TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX journals_state ON journals(state);

CREATE TABLE effects (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  turn_id TEXT,
  tool_name TEXT NOT NULL,
  tool_call_id TEXT,
  idempotency_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('started', 'succeeded', 'failed')),
  request TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX effects_session ON effects(session_id, created_at);
CREATE INDEX effects_key ON effects(idempotency_key);

CREATE TABLE command_facts (
  command_id TEXT PRIMARY KEY,
  session_id TEXT,
  kind TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE blob_pins (
  owner TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (owner, hash)
) WITHOUT ROWID;

CREATE TRIGGER entries_append_only BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'waypoint: entries are append-only'); END;
CREATE TRIGGER checkpoints_append_only BEFORE UPDATE ON checkpoints
BEGIN SELECT RAISE(ABORT, 'waypoint: checkpoints are append-only'); END;
CREATE TRIGGER effects_append_only BEFORE UPDATE ON effects
BEGIN SELECT RAISE(ABORT, 'waypoint: effects are append-only'); END;
CREATE TRIGGER message_parts_append_only BEFORE UPDATE ON message_parts
WHEN (SELECT status FROM messages WHERE seq = OLD.seq) != 'streaming'
BEGIN SELECT RAISE(ABORT, 'waypoint: parts are immutable once their message is complete'); END;
CREATE TRIGGER messages_append_only BEFORE UPDATE ON messages
WHEN OLD.status != 'streaming' OR NEW.id != OLD.id OR NEW.parent_seq IS NOT OLD.parent_seq
  OR NEW.tree_id != OLD.tree_id OR NEW.depth != OLD.depth OR NEW.session_id != OLD.session_id
BEGIN SELECT RAISE(ABORT, 'waypoint: messages are immutable once complete'); END;
`;
