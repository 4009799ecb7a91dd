// The e-mail module: the SMTP capture server (SMTP_ENABLED, SMTP_PORT) and the outgoing mailer for
// the Send Email action. Later modules find them in `shared`: 'mail' ({port}) and 'mailer'.
import type { ModuleContext, ServiceModule } from '../modules.js';
import { systemResolver, type DnsResolver } from './checks.js';
import { createRelayMailer } from './relay.js';
import { startSmtpServer, type SmtpCapture } from './smtp.js';

export { checkMessage, systemResolver, type DnsResolver, type MailChecks } from './checks.js';
export { createRelayMailer, MailLoop } from './relay.js';
export { startSmtpServer, tokenForAddress } from './smtp.js';

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
    async start(ctx: ModuleContext) {
      let smtp: SmtpCapture | null = null;
      if (ctx.config.SMTP_ENABLED) smtp = await startSmtpServer(ctx, { resolver: options.resolver ?? systemResolver() });
      const info: MailInfo = { port: smtp?.port ?? null };
      const mailer = createRelayMailer(ctx.config, () => info.port);
      ctx.shared.set('mail', info);
      ctx.shared.set('mailer', mailer);
      return {
        async stop() {
          mailer.close();
          await smtp?.close();
        },
      };
    },
  };
}

export const mailModule = createMailModule();
