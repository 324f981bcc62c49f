/**
 * A JSON-RPC 2.0 client over one WebSocket: requests get ids and promises, notifications (no id)
 * go to the event listeners. The per-start token comes from the page's URL (`?token=`), which is
 * what `waypoint serve` prints.
 */
export interface RpcErrorShape {
  code: number;
  message: string;
  data?: { code?: string; [key: string]: unknown };
}

/** A refusal from the server: `waypointCode` is the engine's stable code (`TURN_RUNNING` …) when it has one. */
export class RpcError extends Error {
  readonly code: number;
  readonly waypointCode: string | null;
  readonly data: RpcErrorShape['data'];
  constructor(shape: RpcErrorShape) {
    super(shape.message);
    this.code = shape.code;
    this.data = shape.data;
    this.waypointCode = typeof shape.data?.code === 'string' ? shape.data.code : null;
  }
}

export type EventListener = (method: string, params: unknown) => void;
export type ConnectionListener = (state: ConnectionState) => void;
export type ConnectionState = 'connecting' | 'open' | 'closed' | 'refused';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class RpcClient {
  private socket: WebSocket | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<EventListener>();
  private readonly connectionListeners = new Set<ConnectionListener>();
  private opened: Promise<void> | null = null;
  state: ConnectionState = 'connecting';

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  static fromLocation(location: Location, path: string): RpcClient {
    const token = new URLSearchParams(location.search).get('token') ?? new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return new RpcClient(`${scheme}//${location.host}${path}`, token);
  }

  get tokenValue(): string {
    return this.token;
  }

  onEvent(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onConnection(listener: ConnectionListener): () => void {
    this.connectionListeners.add(listener);
    return () => this.connectionListeners.delete(listener);
  }

  connect(): Promise<void> {
    if (this.opened) return this.opened;
    this.opened = new Promise((resolve, reject) => {
      const separator = this.url.includes('?') ? '&' : '?';
      const socket = new WebSocket(`${this.url}${separator}token=${encodeURIComponent(this.token)}`);
      this.socket = socket;
      let open = false;
      socket.onopen = () => {
        open = true;
        this.setState('open');
        resolve();
      };
      socket.onmessage = (event) => this.receive(String(event.data));
      socket.onclose = () => {
        this.setState(open ? 'closed' : 'refused');
        for (const waiting of this.pending.values()) waiting.reject(new Error('the connection to waypoint serve closed'));
        this.pending.clear();
        if (!open) reject(new Error('waypoint serve refused the connection (a wrong or missing token, or another origin)'));
      };
    });
    return this.opened;
  }

  async call<T>(method: string, params: object = {}): Promise<T> {
    await this.connect();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.socket!.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  close(): void {
    this.socket?.close();
  }

  private setState(state: ConnectionState): void {
    this.state = state;
    for (const listener of this.connectionListeners) listener(state);
  }

  private receive(text: string): void {
    let message: { id?: number | string | null; result?: unknown; error?: RpcErrorShape; method?: string; params?: unknown };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message.method === 'string' && (message.id === undefined || message.id === null)) {
      for (const listener of this.listeners) listener(message.method, message.params);
      return;
    }
    if (typeof message.id !== 'number') return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (message.error) waiting.reject(new RpcError(message.error));
    else waiting.resolve(message.result);
  }
}
