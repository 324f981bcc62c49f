import { memo, type ReactNode, useEffect, useState } from 'react';
import { type Api, describeError } from './api.js';
import type { FamilyNode, SessionRow, SessionTree, TreeNode } from './types.js';

const KIND_WORDS: Record<string, string> = { main: 'session', fork: 'fork', side_chat: 'side chat' };

/** Every session, newest first: title, directory, time and kind. */
export function SessionList(props: { sessions: SessionRow[]; selected: string | null; onSelect: (id: string) => void }): ReactNode {
  if (props.sessions.length === 0) return <p className="empty">No sessions in this store yet.</p>;
  return (
    <ul className="sessions" aria-label="Sessions">
      {props.sessions.map((session) => (
        <li key={session.id}>
          <button
            type="button"
            className="session-row"
            aria-current={session.id === props.selected ? 'true' : undefined}
            onClick={() => props.onSelect(session.id)}
          >
            <span className="title">{session.title || '(untitled)'}</span>
            <span className="kind badge">{session.subagent ? 'subagent' : (KIND_WORDS[session.kind] ?? session.kind)}</span>
            {session.running ? <span className="badge running">running</span> : null}
            <span className="dir">{session.workdir ?? '(no directory)'}</span>
            <time dateTime={new Date(session.createdAt).toISOString()}>{new Date(session.createdAt).toLocaleString()}</time>
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Start a session in a directory (it must exist). */
export function NewSession(props: { api: Api; onCreated: (id: string) => void }): ReactNode {
  const [workdir, setWorkdir] = useState('');
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="new-session"
      aria-label="New session"
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          const { session } = await props.api.createSession(workdir, title);
          setError(null);
          setWorkdir('');
          setTitle('');
          props.onCreated(session.id);
        } catch (failure) {
          setError(describeError(failure));
        }
      }}
    >
      <input aria-label="Directory" placeholder="/path/to/project" value={workdir} onChange={(event) => setWorkdir(event.target.value)} required />
      <input aria-label="Title" placeholder="Title (optional)" value={title} onChange={(event) => setTitle(event.target.value)} />
      <button type="submit">New session</button>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </form>
  );
}

/**
 * The session's family as a tree (forks, side chats, subagents), and the branches inside the
 * selected session's conversation that rewinds, edits and retries left, both clickable.
 */
export const FamilyPanel = memo(function FamilyPanel(props: {
  api: Api;
  sessionId: string;
  version: number;
  /** False until the conversation's newest page arrived: its request goes first. */
  ready: boolean;
  onSelect: (id: string) => void;
  onOpenBranch: (messageId: string) => void;
}): ReactNode {
  const [family, setFamily] = useState<FamilyNode | null>(null);
  const [tree, setTree] = useState<SessionTree | null>(null);
  const { api, sessionId, version, ready } = props;
  useEffect(() => {
    let live = true;
    void version;
    if (!ready) return;
    api
      .family(sessionId)
      .then((found) => live && setFamily(found.root))
      .catch(() => live && setFamily(null));
    api
      .tree(sessionId)
      .then((found) => live && setTree(found))
      .catch(() => live && setTree(null));
    return () => {
      live = false;
    };
  }, [api, sessionId, version, ready]);
  return (
    <section className="family" aria-label="Family">
      <h2>Family</h2>
      {family ? (
        <ul role="tree" aria-label="Sessions of this family">
          <FamilyItem node={family} selected={sessionId} onSelect={props.onSelect} level={1} />
        </ul>
      ) : (
        <p className="hint">…</p>
      )}
      <h2>Branches</h2>
      {tree && tree.nodes.length > 0 ? <Branches tree={tree} onOpen={props.onOpenBranch} /> : <p className="hint">No inputs yet.</p>}
    </section>
  );
});

function FamilyItem(props: { node: FamilyNode; selected: string; onSelect: (id: string) => void; level: number }): ReactNode {
  const { node } = props;
  const kind = node.subagent ? 'subagent' : (KIND_WORDS[node.session.kind] ?? node.session.kind);
  return (
    <li role="treeitem" aria-level={props.level} aria-expanded={node.children.length > 0 ? true : undefined} aria-selected={node.session.id === props.selected}>
      <button type="button" onClick={() => props.onSelect(node.session.id)} aria-current={node.session.id === props.selected ? 'true' : undefined}>
        <span className="badge">{kind}</span> {node.session.title || '(untitled)'} <span className="hint">{node.turns} turns</span>
      </button>
      {node.children.length > 0 ? (
        <ul role="group">
          {node.children.map((child) => (
            <FamilyItem key={child.session.id} node={child} selected={props.selected} onSelect={props.onSelect} level={props.level + 1} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** Inputs kept at each end of a long straight stretch of the branches tree. */
const RUN_KEEP = 5;

/** The inputs of the conversation tree, nested where a rewind, edit or retry branched off. */
function Branches(props: { tree: SessionTree; onOpen: (messageId: string) => void }): ReactNode {
  const children = new Map<string | null, TreeNode[]>();
  for (const node of props.tree.nodes) {
    const list = children.get(node.parentMessageId) ?? [];
    list.push(node);
    children.set(node.parentMessageId, list);
  }
  // Flatten single-child chains into siblings so a long linear conversation is not 1000 levels deep.
  const flat = (parent: string | null, level: number): ReactNode[] => {
    const out: ReactNode[] = [];
    let cursor: string | null = parent;
    let branched = false;
    // A long straight stretch shows its first and last inputs and a count between them.
    const squeeze = () => {
      if (out.length <= RUN_KEEP * 2 + 1) return;
      const hidden = out.length - RUN_KEEP * 2;
      out.splice(
        RUN_KEEP,
        hidden,
        <li key={`more-${level}-${String(parent)}`} role="none" className="hint">
          … {hidden} more inputs
        </li>,
      );
    };
    for (;;) {
      const nodes: TreeNode[] = children.get(cursor) ?? [];
      if (nodes.length === 0) break;
      if (nodes.length > 1) {
        squeeze();
        branched = true;
        out.push(
          ...nodes.map((node) => (
            <li
              key={node.messageId}
              role="treeitem"
              aria-level={level}
              aria-selected={node.onPath}
              aria-expanded
              className={node.onPath ? 'on-path' : 'off-path'}
            >
              <button type="button" onClick={() => props.onOpen(node.messageId)}>
                {node.text || '(empty)'}
              </button>
              <ul role="group">{flat(node.messageId, level + 1)}</ul>
            </li>
          )),
        );
        break;
      }
      const node: TreeNode = nodes[0]!;
      out.push(
        <li key={node.messageId} role="treeitem" aria-level={level} aria-selected={node.onPath} className={node.onPath ? 'on-path' : 'off-path'}>
          <button type="button" onClick={() => props.onOpen(node.messageId)}>
            {node.text || '(empty)'}
          </button>
        </li>,
      );
      cursor = node.messageId;
    }
    if (!branched) squeeze();
    return out;
  };
  return (
    <ul role="tree" aria-label="Branches of this conversation" className="branches">
      {flat(null, 1)}
    </ul>
  );
}
