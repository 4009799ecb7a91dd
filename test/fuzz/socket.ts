// The socket.io channel for the fuzzer: one connection, `subscribe` events with hostile payloads,
// and the answer for the channel named (`subscribed` or `subscription_error` with a status).
import { io, type Socket } from 'socket.io-client';

export type SubscribeOutcome = { kind: 'subscribed' } | { kind: 'refused'; status: number } | { kind: 'hang'; ms: number } | { kind: 'silent' } | { kind: 'no-answer'; error: string };

export class SocketChannel {
  private socket: Socket | null = null;

  constructor(private readonly base: string) {}

  private async connected(timeoutMs: number): Promise<Socket> {
    if (this.socket?.connected) return this.socket;
    this.socket?.close();
    const socket = io(this.base, { transports: ['websocket'], reconnection: false, forceNew: true });
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`socket.io did not connect within ${timeoutMs} ms`)), timeoutMs);
      socket.once('connect', () => (clearTimeout(timer), resolve()));
      socket.once('connect_error', (err) => (clearTimeout(timer), reject(err)));
    });
    return socket;
  }

  /**
   * Emits `subscribe` with the payload. A payload whose `channel` is a string is answered (the
   * server says why it refuses, or that it subscribed: then this unsubscribes again); others are not.
   */
  async subscribe(payload: unknown, timeoutMs: number): Promise<SubscribeOutcome> {
    let socket: Socket;
    try {
      socket = await this.connected(timeoutMs);
    } catch (err) {
      return { kind: 'no-answer', error: (err as Error).message };
    }
    const channel = payload && typeof payload === 'object' ? (payload as { channel?: unknown }).channel : undefined;
    if (typeof channel !== 'string') {
      socket.emit('subscribe', payload);
      return { kind: 'silent' };
    }
    return new Promise((resolve) => {
      const done = (outcome: SubscribeOutcome) => {
        clearTimeout(timer);
        socket.off('subscribed', onSubscribed);
        socket.off('subscription_error', onError);
        socket.off('disconnect', onDisconnect);
        if (outcome.kind === 'subscribed') socket.emit('unsubscribe', { channel });
        resolve(outcome);
      };
      const onSubscribed = (name: string) => name === channel && done({ kind: 'subscribed' });
      const onError = (name: string, status: number) => name === channel && done({ kind: 'refused', status });
      const onDisconnect = (reason: string) => done({ kind: 'no-answer', error: `disconnected: ${reason}` });
      const timer = setTimeout(() => done({ kind: 'hang', ms: timeoutMs }), timeoutMs);
      socket.on('subscribed', onSubscribed);
      socket.on('subscription_error', onError);
      socket.on('disconnect', onDisconnect);
      socket.emit('subscribe', payload);
    });
  }

  close(): void {
    this.socket?.close();
    this.socket = null;
  }
}
