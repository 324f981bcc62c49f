import { type ReactNode, useCallback, useEffect, useMemo, useState } from 'react';
import { EditDialog, ForkDialog, inputTextOf, RewindConfirm } from './action-dialogs.js';
import { type Api, describeError } from './api.js';
import { ApprovalRequests } from './approvals.js';
import { Composer } from './composer.js';
import { MessageList } from './messages.js';
import { RewindList } from './rewind-list.js';
import type { ConnectionState } from './rpc.js';
import { FamilyPanel, NewSession, SessionList } from './sidebar.js';
import { SessionModel } from './session-model.js';
import { SidePanel } from './side-panel.js';
import type { MessageView, RewindTarget, ServerEvent, SessionRow } from './types.js';
import { UndoDialog } from './undo-dialog.js';
import { useConversation } from './use-conversation.js';
import { BranchView, SelectionAsk } from './views.js';

type Overlay =
  | { kind: 'rewind-list'; targets: RewindTarget[] | null }
  | { kind: 'confirm'; messageId: string; text: string }
  | { kind: 'undo'; turnId: string }
  | { kind: 'edit'; message: MessageView }
  | { kind: 'fork'; message: MessageView }
  | null;

export function App(props: { api: Api }): ReactNode {
  const { api } = props;
  const [connection, setConnection] = useState<ConnectionState>(api.rpc.state);
  const [sessions, setSessions] = useState<SessionRow[]>([]);
  const [selected, setSelected] = useState<string | null>(() => new URLSearchParams(location.hash.slice(1)).get('session'));
  const [version, setVersion] = useState(0);
  const [draft, setDraft] = useState('');
  const [focusRequest, setFocusRequest] = useState(0);
  const [overlay, setOverlay] = useState<Overlay>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [side, setSide] = useState<{ sessionId: string; initial: { text: string; send: boolean } } | null>(null);
  const [branchAt, setBranchAt] = useState<string | null>(null);
  const [showCompacted, setShowCompacted] = useState(false);
  const conversation = useConversation(api, selected);

  const loadSessions = useCallback(() => {
    api
      .listSessions()
      .then((found) => setSessions(found.sessions))
      .catch((error) => setNotice(describeError(error)));
  }, [api]);

  useEffect(() => api.rpc.onConnection(setConnection), [api]);
  useEffect(() => {
    api.rpc.connect().then(loadSessions, () => setConnection('refused'));
    return api.rpc.onEvent((method, params) => {
      if (method !== 'event') return;
      const event = params as ServerEvent;
      if (event.type === 'sessions.changed' || event.type === 'fork') loadSessions();
      if (['rewind', 'fork', 'turn.end', 'session.changed', 'sessions.changed'].includes(event.type)) setVersion((count) => count + 1);
    });
  }, [api, loadSessions]);

  const select = useCallback((id: string) => {
    setSelected(id);
    setBranchAt(null);
    setOverlay(null);
    setShowCompacted(false);
    history.replaceState(null, '', `${location.pathname}${location.search}#session=${id}`);
  }, []);

  const close = () => setOverlay(null);
  const focusInput = () => setFocusRequest((count) => count + 1);

  const openSide = async (initial: { text: string; send: boolean }) => {
    if (!selected) return;
    try {
      const { session } = await api.startSide(selected);
      setSide({ sessionId: session.id, initial });
    } catch (error) {
      setNotice(describeError(error));
    }
  };

  const submit = async (text: string) => {
    if (!selected) return;
    const command = text.trim();
    if (command === '/rewind') {
      if (conversation.running) {
        setNotice('/rewind is ignored while a reply is streaming.');
        return;
      }
      setDraft('');
      setNotice(null);
      setOverlay({ kind: 'rewind-list', targets: null });
      try {
        const { targets } = await api.rewindTargets(selected);
        setOverlay((current) => (current?.kind === 'rewind-list' ? { kind: 'rewind-list', targets } : current));
      } catch (error) {
        setOverlay(null);
        setNotice(describeError(error));
      }
      return;
    }
    const sideMatch = /^\/(side|btw)(?:\s+([\s\S]*))?$/.exec(command);
    if (sideMatch) {
      setDraft('');
      const question = sideMatch[2]?.trim() ?? '';
      await openSide({ text: question, send: question !== '' });
      return;
    }
    if (command === '') return;
    try {
      await api.send(selected, text);
      setDraft('');
      setNotice(null);
    } catch (error) {
      setNotice(describeError(error));
    }
  };

  const rewindTo = async (messageId: string) => {
    if (!selected) return;
    // A refusal throws before anything here changes, so the input box keeps what it had.
    const result = await api.rewindConversation(selected, messageId);
    setOverlay(null);
    setDraft(result.conversation?.draft ?? '');
    focusInput();
    await conversation.reload();
  };

  // Stable while the session is, so the message list is not drawn again for every keystroke.
  const handlers = useMemo(
    () => ({
      onRewind: (message: MessageView) => setOverlay({ kind: 'confirm', messageId: message.id, text: inputTextOf(message) }),
      onEdit: (message: MessageView) => setOverlay({ kind: 'edit', message }),
      onFork: (message: MessageView) => setOverlay({ kind: 'fork', message }),
      onUndo: (turnId: string) => setOverlay({ kind: 'undo', turnId }),
      onRetry: async (message: MessageView) => {
        if (!selected) return;
        try {
          await api.retry(selected, message.id);
          setNotice(null);
        } catch (error) {
          setNotice(describeError(error));
        }
      },
    }),
    [api, selected],
  );

  const current = sessions.find((session) => session.id === selected) ?? null;
  // What the model is sent starts at the latest compaction summary; what came before it is folded.
  const foldAt = conversation.page?.modelStartsAt ? conversation.messages.findIndex((message) => message.id === conversation.page!.modelStartsAt) : -1;
  const folded = foldAt > 0 && !showCompacted;
  const shown = folded ? conversation.messages.slice(foldAt) : conversation.messages;
  return (
    <div className={`app ${side ? 'with-side' : ''}`}>
      <header className="top">
        <h1>Waypoint</h1>
        <span className={`connection ${connection}`} role="status" aria-label="Connection">
          {connection === 'refused' ? 'Refused: open the URL waypoint serve printed (it carries the token).' : connection}
        </span>
      </header>
      <nav className="sidebar" aria-label="Sessions and family">
        <NewSession
          api={api}
          onCreated={(id) => {
            loadSessions();
            select(id);
          }}
        />
        <SessionList sessions={sessions} selected={selected} onSelect={select} />
        {selected ? (
          <FamilyPanel api={api} sessionId={selected} version={version} ready={conversation.page !== null} onSelect={select} onOpenBranch={setBranchAt} />
        ) : null}
      </nav>
      <main className="conversation" aria-label="Conversation pane" aria-busy={selected !== null && conversation.page === null && conversation.error === null}>
        {current ? (
          <div className="session-head">
            <h2>{current.title || '(untitled)'}</h2>
            <code>{current.workdir}</code>
            <SessionModel api={api} sessionId={current.id} />
          </div>
        ) : null}
        {!selected ? <p className="empty">Choose a session.</p> : null}
        {branchAt && selected ? (
          <BranchView api={api} sessionId={selected} at={branchAt} onClose={() => setBranchAt(null)} />
        ) : selected ? (
          <>
            {folded ? (
              <button type="button" className="earlier" onClick={() => setShowCompacted(true)}>
                Show {foldAt} messages before the compaction
              </button>
            ) : null}
            {!folded && conversation.page?.nextBefore !== null && conversation.page ? (
              <button type="button" className="earlier" onClick={() => void conversation.loadEarlier()}>
                Show earlier messages
              </button>
            ) : null}
            {conversation.error ? (
              <p role="alert" className="error">
                {conversation.error}
              </p>
            ) : null}
            <MessageList api={api} messages={shown} running={conversation.running} handlers={handlers} />
            {conversation.running ? (
              <p className="hint streaming-status" role="status">
                {conversation.activeTool ? `Running ${conversation.activeTool}…` : 'The assistant is replying…'}
              </p>
            ) : null}
            <ApprovalRequests api={api} sessionId={selected} />
            <SelectionAsk onAsk={(text) => void openSide({ text: `> ${text.replace(/\n/g, '\n> ')}\n\n`, send: false })} />
            {overlay?.kind === 'rewind-list' ? (
              <RewindList
                targets={overlay.targets}
                onChoose={(target) => setOverlay({ kind: 'confirm', messageId: target.messageId, text: target.text })}
                onClose={close}
              />
            ) : null}
            {notice ? (
              <p className="notice" role="status">
                {notice}
              </p>
            ) : null}
            <Composer
              value={draft}
              onChange={setDraft}
              onSubmit={submit}
              onStop={() => void api.stop(selected)}
              running={conversation.running}
              focusRequest={focusRequest}
              label="Message"
            />
          </>
        ) : null}
      </main>
      {side ? <SidePanel key={side.sessionId} api={api} sessionId={side.sessionId} initial={side.initial} onClose={() => setSide(null)} /> : null}
      {overlay?.kind === 'confirm' ? <RewindConfirm text={overlay.text} onConfirm={() => rewindTo(overlay.messageId)} onClose={close} /> : null}
      {overlay?.kind === 'undo' && selected ? (
        <UndoDialog api={api} sessionId={selected} turnId={overlay.turnId} onClose={close} onDone={() => void conversation.reload()} />
      ) : null}
      {overlay?.kind === 'edit' && selected ? <EditDialog api={api} sessionId={selected} message={overlay.message} onClose={close} onStarted={close} /> : null}
      {overlay?.kind === 'fork' && selected ? <ForkDialog api={api} sessionId={selected} message={overlay.message} onClose={close} onOpen={select} /> : null}
    </div>
  );
}
