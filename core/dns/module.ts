// The DNS module: the DNS capture server (DNS_ENABLED, DNS_PORT, DNS_DOMAIN). Provides its port as
// DNS_INFO ({port}; tests read it).
import type { ModuleContext, ServiceModule } from '../service-module.js';
import { DNS_INFO } from '../service-keys.js';
import { startDnsServer, type DnsCapture } from './server.js';

export interface DnsInfo {
  /** The port of the DNS server (UDP and TCP), or null when it is off. */
  port: number | null;
}

export function createDnsModule(): ServiceModule {
  return {
    name: 'dns',
    provides: [DNS_INFO],
    async start(ctx: ModuleContext) {
      let server: DnsCapture | null = null;
      if (ctx.config.DNS_ENABLED) server = await startDnsServer(ctx);
      ctx.provide(DNS_INFO, { port: server?.port ?? null });
      return {
        async stop() {
          await server?.close();
        },
      };
    },
  };
}
