/**
 * A small typed event emitter. Engine operations emit only after their store transaction has
 * committed (events after commit), so a listener never sees an event for a change that was
 * rolled back. A throwing listener does not break the operation or other listeners; its error is
 * handed to the `onListenerError` hook.
 *
 * @example
 * const events = new EventBus<{ 'message-append': { messageId: string } }>();
 * const off = events.on('message-append', (event) => console.log(event.messageId));
 */
export class EventBus<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(event: never) => void>>();

  constructor(private readonly onListenerError: (error: unknown, name: keyof Events) => void = () => {}) {}

  on<Name extends keyof Events>(name: Name, listener: (event: Events[Name]) => void): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as (event: never) => void);
    return () => set.delete(listener as (event: never) => void);
  }

  once<Name extends keyof Events>(name: Name, listener: (event: Events[Name]) => void): () => void {
    const off = this.on(name, (event) => {
      off();
      listener(event);
    });
    return off;
  }

  emit<Name extends keyof Events>(name: Name, event: Events[Name]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (event: Events[Name]) => void)(event);
      } catch (error) {
        this.onListenerError(error, name);
      }
    }
  }

  listenerCount(name: keyof Events): number {
    return this.listeners.get(name)?.size ?? 0;
  }
}
