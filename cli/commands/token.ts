// capture token create|get|delete
import type { TokenCreate } from '../../packages/client/src/index.js';
import { accept, CONNECTION, flag, number, text, UsageError } from '../args.js';
import type { Context } from '../context.js';

export async function token(ctx: Context, command: string | undefined, rest: string[]): Promise<number> {
  const { parsed } = ctx;
  switch (command) {
    case 'create': {
      accept(parsed, 'token create', [...CONNECTION, 'alias', 'status', 'content', 'content-type', 'listen', 'request-limit', 'description', 'json', 'quiet']);
      if (rest.length) throw new UsageError('token create takes no arguments (settings are options)');
      const body: TokenCreate = {};
      const alias = text(parsed, 'alias');
      if (alias !== undefined) body.alias = alias;
      const status = number(parsed, 'status', 200, 599);
      if (status !== undefined) body.default_status = status;
      const content = text(parsed, 'content');
      if (content !== undefined) body.default_content = content;
      const type = text(parsed, 'content-type');
      if (type !== undefined) body.default_content_type = type;
      const listen = number(parsed, 'listen', 0, 10);
      if (listen !== undefined) body.listen = listen;
      const limit = number(parsed, 'request-limit', 0, 10_000);
      if (limit !== undefined) body.request_limit = limit;
      const description = text(parsed, 'description');
      if (description !== undefined) body.description = description;
      const client = ctx.client();
      const t = await client.createToken(body);
      if (flag(parsed, 'json')) ctx.out(JSON.stringify(t));
      else if (flag(parsed, 'quiet')) ctx.out(t.uuid);
      else {
        ctx.out(`token  ${t.uuid}`);
        ctx.out(`url    ${client.captureUrl(t)}`);
        if (t.alias) ctx.out(`alias  ${client.captureUrl(t.alias)}`);
      }
      return 0;
    }
    case 'get':
      accept(parsed, 'token get', CONNECTION);
      if (rest.length !== 1) throw new UsageError('token get needs one token');
      ctx.out(JSON.stringify(await ctx.client().getToken(rest[0]!)));
      return 0;
    case 'delete':
      accept(parsed, 'token delete', CONNECTION);
      if (!rest.length) throw new UsageError('token delete needs at least one token');
      for (const ref of rest) {
        await ctx.client().deleteToken(ref);
        ctx.err(`deleted token ${ref}`);
      }
      return 0;
    default:
      throw new UsageError(command ? `unknown command "token ${command}"` : 'token needs a command: create, get or delete');
  }
}
