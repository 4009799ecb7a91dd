// The e-mail module: the SMTP capture server (SMTP_ENABLED, SMTP_PORT) and the outgoing mailer for
// the Send Email action. Provides MAIL_INFO ({port}) and MAIL_RELAY (core/service-keys.ts).
import type { ModuleContext, ServiceModule } from '../service-module.js';
import { MAIL_INFO, MAIL_RELAY } from '../service-keys.js';
import { systemResolver, type DnsResolver } from './checks.js';
import { createRelayMailer } from './relay.js';
import { startSmtpServer, type SmtpCapture } from './smtp.js';

export interface MailModuleOptions {
  /** DNS for SPF/DKIM/DMARC checks (tests pass a fixed one); default the system resolver. */
  resolver?: DnsResolver;
}

export interface MailInfo {
  /** The port the SMTP server listens on, or null when it is off. */
  port: number | null;
}

export function createMailModule(options: MailModuleOptions = {}): ServiceModule {
  return {
    name: 'mail',
    provides: [MAIL_INFO, MAIL_RELAY],
    async start(ctx: ModuleContext) {
      let smtp: SmtpCapture | null = null;
      if (ctx.config.SMTP_ENABLED) smtp = await startSmtpServer(ctx, { resolver: options.resolver ?? systemResolver() });
      const info: MailInfo = { port: smtp?.port ?? null };
      const mailer = createRelayMailer(ctx.config, () => info.port);
      ctx.provide(MAIL_INFO, info);
      ctx.provide(MAIL_RELAY, mailer);
      return {
        async stop() {
          mailer.close();
          await smtp?.close();
        },
      };
    },
  };
}
