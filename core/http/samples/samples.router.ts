// Sample deliveries (core/samples): the catalogue, and sending one signed delivery to a token or a URL.
import Router from '@koa/router';
import { isUtf8 } from 'node:buffer';
import { requireCaller } from '../../auth/access.js';
import { SAMPLE_CATALOGUE } from '../../samples/catalogue.js';
import type { SampleResult, SampleService } from '../../samples/service.js';
import { mountRoutes, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { callerAddress, loadToken, publicBaseUrl } from '../token-access.js';
import { SampleCatalogue, SampleSendBody, SampleSent } from './samples.schema.js';

const route = routeFor<{ services: HttpServices; samples: SampleService }>();

export const sampleRoutes = [
  route({
    method: 'get',
    path: '/samples',
    summary: 'The sample deliveries: each provider (source, licence, the verify_signature preset that checks it) and its events (see docs/samples.md)',
    auth: 'public',
    response: { status: 200, schema: SampleCatalogue },
    handler: () => ({
      data: Object.values(SAMPLE_CATALOGUE).map((p) => ({
        provider: p.id,
        name: p.name,
        source: p.source,
        licence: p.licence,
        verify_preset: p.preset,
        secret_required: p.secretRequired,
        events: p.events(),
      })),
    }),
  }),
  route({
    method: 'post',
    path: '/samples/send',
    summary:
      'Send one sample delivery, signed as its provider signs (fresh timestamp): to one of your tokens (`token`: captured there as if the provider had sent it, actions and all; who may change the token may) or to a `url` through the outbound policy (needs an API key). Answers what was sent and what came back. 422 for an unknown event, a missing or unusable secret, a refused URL',
    auth: 'token',
    body: SampleSendBody,
    response: { status: 200, schema: SampleSent },
    handler: async (ctx, { services, samples }) => {
      const { token: ref, url, ...req } = ctx.input.body;
      let result: SampleResult;
      if (ref !== undefined) {
        const token = await loadToken(ctx, services, ref);
        result = await samples.sendToToken(token, req, `${publicBaseUrl(ctx, services)}/${token.uuid}`, callerAddress(ctx, services));
      } else {
        // An open relay of signed requests to any address the policy allows (loopback and private
        // ranges by default) would be a gift to abuse: sending to a URL needs a key.
        requireCaller(ctx.state.caller);
        result = await samples.sendToUrl(req, url!);
      }
      const { delivery } = result;
      const text = isUtf8(delivery.body);
      return {
        provider: req.provider,
        event: req.event,
        format: result.format,
        verify_preset: SAMPLE_CATALOGUE[req.provider].preset,
        sent: { method: delivery.method, url: result.url, headers: delivery.headers, body: delivery.body.toString(text ? 'utf8' : 'base64'), body_encoding: text ? 'utf8' : 'base64' },
        response: result.answer,
        request_id: result.requestId,
      };
    },
  }),
];

export function samplesRouter(services: HttpServices, samples: SampleService): Router<AppState> {
  return mountRoutes(new Router<AppState>(), sampleRoutes, { services, samples });
}
