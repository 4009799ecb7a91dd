// An in-memory stand-in for the Schedules API as documented (seed: Schedules endpoints; page
// envelopes; 422 `{message, errors}`), so the page's schedule views are tested against the contract
// whether or not the server's scheduler module is there.
import Router from '@koa/router';
import type { AppState } from '../../core/http/services.js';
import type { ServiceModule } from '../../core/modules.js';

interface Log {
  id: number;
  schedule_id: number;
  response_status: number | null;
  response_headers: Record<string, string[]>;
  response_body: string;
  time: number;
  error: string | null;
  tls_expires_at: string | null;
  tls_days_left: number | null;
  tls_alert: string | null;
  created_at: string;
  updated_at: string;
}

const stamp = () => new Date().toISOString().slice(0, 19).replace('T', ' ');

function envelope<T>(base: string, path: string, data: T[], page: number, perPage: number) {
  const total = data.length;
  const last = Math.max(1, Math.ceil(total / perPage));
  const slice = data.slice((page - 1) * perPage, page * perPage);
  const link = (p: number) => `${base}${path}?page=${p}`;
  return {
    data: slice,
    current_page: page,
    first_page_url: link(1),
    from: slice.length ? (page - 1) * perPage + 1 : null,
    last_page: last,
    last_page_url: link(last),
    next_page_url: page < last ? link(page + 1) : null,
    path: base + path,
    per_page: perPage,
    prev_page_url: page > 1 ? link(page - 1) : null,
    to: slice.length ? (page - 1) * perPage + slice.length : null,
    total,
  };
}

export function schedulesStub(): ServiceModule {
  return {
    name: 'schedules-stub',
    async start() {
      const schedules = new Map<number, Record<string, unknown>>();
      const logs: Log[] = [];
      let nextId = 1;
      const router = new Router<AppState>();

      router.use('/schedules', async (ctx, next) => {
        if (ctx.state.caller.kind === 'anonymous') {
          ctx.status = 401;
          ctx.body = { message: 'Authentication required' };
          return;
        }
        await next();
      });

      const validate = (body: Record<string, unknown>) => {
        const errors: Record<string, string[]> = {};
        if (typeof body.request_url !== 'string' || !/^https?:\/\//.test(body.request_url)) errors.request_url = ['must be an http or https URL'];
        if (body.interval === 'cron' && !body.cron) errors.cron = ['is required when interval is cron'];
        return errors;
      };
      const save = (id: number, body: Record<string, unknown>, ctx: { status: number; body: unknown }) => {
        const errors = validate(body);
        if (Object.keys(errors).length) {
          ctx.status = 422;
          ctx.body = { message: `${Object.keys(errors)[0]}: ${Object.values(errors)[0]![0]}`, errors };
          return;
        }
        const before = schedules.get(id);
        const s = {
          id,
          name: '',
          cron: null,
          user_id: 1,
          timeout: 5,
          require_body: null,
          require_status_min: null,
          require_status_max: null,
          tls_expiry_alert_days: null,
          group_id: null,
          last_run_at: null,
          last_status: null,
          created_at: stamp(),
          ...before,
          ...body,
          updated_at: stamp(),
        };
        schedules.set(id, s);
        ctx.body = s;
      };

      router.get('/schedules', (ctx) => {
        const page = Number(ctx.query.page ?? 1);
        const perPage = Number(ctx.query.per_page ?? 15);
        ctx.body = envelope(`${ctx.protocol}://${ctx.host}`, '/schedules', [...schedules.values()], page, perPage);
      });
      router.post('/schedules', (ctx) => save(nextId++, ctx.request.body as Record<string, unknown>, ctx));
      router.get('/schedules/:id', (ctx) => {
        const s = schedules.get(Number(ctx.params.id));
        ctx.status = s ? 200 : 404;
        ctx.body = s ?? { message: 'Schedule not found' };
      });
      router.put('/schedules/:id', (ctx) => {
        if (!schedules.has(Number(ctx.params.id))) {
          ctx.status = 404;
          ctx.body = { message: 'Schedule not found' };
          return;
        }
        save(Number(ctx.params.id), ctx.request.body as Record<string, unknown>, ctx);
      });
      router.delete('/schedules/:id', (ctx) => {
        schedules.delete(Number(ctx.params.id));
        ctx.status = 204;
      });
      router.post('/schedules/:id/run-now', async (ctx) => {
        const s = schedules.get(Number(ctx.params.id));
        if (!s) {
          ctx.status = 404;
          ctx.body = { message: 'Schedule not found' };
          return;
        }
        const started = performance.now();
        const log: Log = {
          id: logs.length + 1,
          schedule_id: s.id as number,
          response_status: null,
          response_headers: {},
          response_body: '',
          time: 0,
          error: null,
          tls_expires_at: null,
          tls_days_left: null,
          tls_alert: null,
          created_at: stamp(),
          updated_at: stamp(),
        };
        try {
          const method = String(s.request_method ?? 'GET');
          const res = await fetch(String(s.request_url), { method, body: method === 'GET' || method === 'HEAD' ? undefined : String(s.request_body ?? '') });
          log.response_status = res.status;
          res.headers.forEach((v, k) => (log.response_headers[k] = [v]));
          log.response_body = await res.text();
        } catch (e) {
          log.error = (e as Error).message;
        }
        log.time = (performance.now() - started) / 1000;
        logs.push(log);
        s.last_run_at = stamp();
        s.last_status = log.response_status;
        ctx.body = { status: true };
      });
      router.get('/schedules/:id/logs', (ctx) => {
        const mine = logs.filter((l) => l.schedule_id === Number(ctx.params.id));
        if (ctx.query.sorting === 'newest') mine.reverse();
        ctx.body = envelope(`${ctx.protocol}://${ctx.host}`, ctx.path, mine, Number(ctx.query.page ?? 1), 50);
      });
      return { routers: [router] };
    },
  };
}
