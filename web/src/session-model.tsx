import { type ReactNode, useEffect, useState } from 'react';
import type { Api } from './api.js';
import type { ServerEvent } from './types.js';

/**
 * The model a session remembers (what `waypoint chat --resume` runs it with), and, when it differs,
 * the model this server runs its next turn with (the session then records that one).
 */
export function SessionModel(props: { api: Api; sessionId: string }): ReactNode {
  const { api, sessionId } = props;
  const [shown, setShown] = useState<{ model: string | null; server: string } | null>(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .session(sessionId)
        .then((found) => {
          if (live) setShown({ model: found.model?.label ?? null, server: found.serverModel });
        })
        .catch(() => {});
    void load();
    const off = api.rpc.onEvent((method, params) => {
      const event = params as ServerEvent;
      if (method === 'event' && event.sessionId === sessionId && event.type === 'turn.end') void load();
    });
    return () => {
      live = false;
      off();
    };
  }, [api, sessionId]);
  if (!shown) return null;
  return (
    <p className="hint session-model">
      Model: <code>{shown.model ?? '(not recorded)'}</code>
      {shown.model !== shown.server ? (
        <>
          {' '}
          · this server runs its next turn with <code>{shown.server}</code>
        </>
      ) : null}
    </p>
  );
}
