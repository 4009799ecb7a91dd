// Sample deliveries as a service module: GET /samples and POST /samples/send. Deliveries to a token
// go through the capture pipeline (its actions, storage and realtime hooks); to a URL through the
// outbound client, as the page's Forward does.
import { forwardRequest } from '../http/requests/forward.js';
import { samplesRouter } from '../http/samples/samples.router.js';
import { createOutboundClient } from '../net/outbound.js';
import type { ModuleContext, ServiceModule } from '../service-module.js';
import { SampleService } from './service.js';

export function createSamplesModule(): ServiceModule {
  return {
    name: 'samples',
    async start(ctx: ModuleContext) {
      const outbound = createOutboundClient(ctx.config);
      const samples = new SampleService({
        clock: ctx.clock,
        pipeline: ctx.pipeline,
        sortingKey: ctx.sortingKey,
        maxBodyBytes: ctx.config.MAX_BODY_BYTES,
        forward: (record, url) => forwardRequest(outbound, record, url, 'POST'),
      });
      return { routers: [samplesRouter(ctx, samples)] };
    },
  };
}
