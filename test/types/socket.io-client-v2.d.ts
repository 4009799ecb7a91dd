// socket.io-client 2.x (the version the official CLI uses), installed under an alias for tests.
declare module 'socket.io-client-v2' {
  interface SocketV2 {
    connected: boolean;
    on(event: string, fn: (...args: any[]) => void): SocketV2;
    once(event: string, fn: (...args: any[]) => void): SocketV2;
    emit(event: string, ...args: unknown[]): SocketV2;
    close(): SocketV2;
    io: { engine: { transport: { name: string } } };
  }
  function io(url: string, opts?: Record<string, unknown>): SocketV2;
  export default io;
}
