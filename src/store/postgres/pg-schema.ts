/**
 * Schema version 1 of the PostgreSQL store: the same records as the SQLite store's migrations 1–4
 * (sessions, the message tree, entries, turns, checkpoints, journals, effects, command facts, blob
 * pins, write intents, workspace locks), plus the blobs themselves, chunked in a table. JSON is kept
 * as text (exactly as written). Messages, entries, checkpoints and effects are append-only:
 * triggers refuse updates, except a message's while it streams.
 */
export const PG_SCHEMA_V1_SQL = `
CREATE TABLE waypoint_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  tree_id TEXT NOT NULL,
  parent_id TEXT REFERENCES messages(id),
  session_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
  kind TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('complete', 'streaming', 'error', 'interrupted')),
  turn_id TEXT,
  depth INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  part_meta TEXT NOT NULL,
  parts TEXT NOT NULL
);
CREATE INDEX messages_parent ON messages(parent_id);
CREATE INDEX messages_tree ON messages(tree_id, created_at, id);
CREATE INDEX messages_session ON messages(session_id);
CREATE INDEX messages_turn ON messages(turn_id) WHERE turn_id IS NOT NULL;

CREATE TABLE message_blobs (
  message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  hash TEXT NOT NULL,
  PRIMARY KEY (message_id, hash)
);
CREATE INDEX message_blobs_hash ON message_blobs(hash);

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
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX sessions_parent ON sessions(parent_session_id);
CREATE INDEX sessions_root ON sessions(root_session_id);
CREATE INDEX sessions_tree ON sessions(tree_id);
CREATE INDEX sessions_created ON sessions(created_at, id);

CREATE TABLE entries (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  created_at BIGINT NOT NULL,
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
  started_at BIGINT NOT NULL,
  ended_at BIGINT
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
  created_at BIGINT NOT NULL,
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
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX journals_state ON journals(state);

CREATE TABLE journal_blobs (
  journal_id TEXT NOT NULL REFERENCES journals(id) ON DELETE CASCADE,
  hash TEXT NOT NULL,
  PRIMARY KEY (journal_id, hash)
);

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
  created_at BIGINT NOT NULL,
  ord BIGSERIAL
);
CREATE INDEX effects_session ON effects(session_id, created_at);
CREATE INDEX effects_key ON effects(idempotency_key);

CREATE TABLE command_facts (
  command_id TEXT PRIMARY KEY,
  session_id TEXT,
  kind TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE TABLE blob_pins (
  owner TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (owner, hash)
);

CREATE TABLE write_intents (
  id TEXT PRIMARY KEY,
  session_id TEXT,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  hashes TEXT NOT NULL,
  checkpoints TEXT NOT NULL DEFAULT '[]',
  files TEXT NOT NULL DEFAULT '[]',
  exec TEXT,
  created_at BIGINT NOT NULL
);

-- Locks belong to a machine: the same directory name on two hosts is two directories.
CREATE TABLE workspace_locks (
  host TEXT NOT NULL,
  path TEXT NOT NULL,
  owner TEXT NOT NULL,
  pid INTEGER NOT NULL,
  purpose TEXT NOT NULL,
  acquired_at BIGINT NOT NULL,
  PRIMARY KEY (host, path)
);
CREATE INDEX workspace_locks_owner ON workspace_locks(owner);

CREATE TABLE blobs (
  hash TEXT PRIMARY KEY,
  size BIGINT NOT NULL CHECK (size >= 0),
  stored_size BIGINT NOT NULL CHECK (stored_size >= 0),
  encoding TEXT NOT NULL CHECK (encoding IN ('raw', 'deflate', 'delta')),
  base_hash TEXT,
  chain_depth INTEGER NOT NULL DEFAULT 0 CHECK (chain_depth >= 0),
  created_at BIGINT NOT NULL,
  CHECK ((encoding = 'delta') = (base_hash IS NOT NULL))
);
CREATE INDEX blobs_base ON blobs(base_hash) WHERE base_hash IS NOT NULL;

-- The stored bytes, in chunks of at most 1 MiB; already compressed by the blob layer, so not again.
CREATE TABLE blob_chunks (
  hash TEXT NOT NULL REFERENCES blobs(hash) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  data BYTEA NOT NULL,
  PRIMARY KEY (hash, idx)
);
ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE FUNCTION waypoint_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'waypoint: % are append-only', TG_TABLE_NAME USING ERRCODE = 'WP001';
END
$fn$;
CREATE TRIGGER entries_append_only BEFORE UPDATE ON entries FOR EACH ROW EXECUTE FUNCTION waypoint_append_only();
CREATE TRIGGER checkpoints_append_only BEFORE UPDATE ON checkpoints FOR EACH ROW EXECUTE FUNCTION waypoint_append_only();
CREATE TRIGGER effects_append_only BEFORE UPDATE ON effects FOR EACH ROW EXECUTE FUNCTION waypoint_append_only();

CREATE FUNCTION waypoint_message_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF OLD.status <> 'streaming' OR NEW.id <> OLD.id OR NEW.parent_id IS DISTINCT FROM OLD.parent_id
     OR NEW.tree_id <> OLD.tree_id OR NEW.depth <> OLD.depth OR NEW.session_id <> OLD.session_id THEN
    RAISE EXCEPTION 'waypoint: messages are immutable once complete' USING ERRCODE = 'WP001';
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER messages_append_only BEFORE UPDATE ON messages FOR EACH ROW EXECUTE FUNCTION waypoint_message_update();
`;

export interface PgMigration {
  version: number;
  description: string;
  sql: string;
}

/** Ordered migrations; `waypoint_meta.schema_version` records the last one applied. Never edit a shipped one. */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  { version: 1, description: 'every record of the store, blobs in chunks, workspace locks per host', sql: PG_SCHEMA_V1_SQL },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.at(-1)!.version;
