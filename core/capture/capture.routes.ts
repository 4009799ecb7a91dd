// The capture URLs as route descriptors: served by the plain node:http handler (http-capture.ts),
// not Koa, but described in /openapi.json from these objects like every other route. Plain data of
// the RouteDoc shape (core/http/route.ts), so this layer imports nothing from core/http.

/** Every method a capture URL takes (HEAD included: the plain handler answers it itself). */
export const CAPTURE_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'] as const;

const SUMMARIES = {
  '/{token_id}': "Capture: any request to a token URL is stored and answered with the token's default (or Custom Action) response",
  '/{token_id}/{path}': 'Capture: any path (any number of segments) under a token URL is captured like the token URL',
} as const;

/** One descriptor per method and path; `type` `*\/*`: the answer is whatever the token (or its actions) says. */
export const captureRoutes = Object.entries(SUMMARIES).flatMap(([path, summary]) =>
  CAPTURE_METHODS.map((method) => ({
    method,
    path,
    summary,
    auth: 'public' as const,
    response: { status: 200, type: '*/*' },
    ...(path.endsWith('{path}') ? { rest: 'path' } : {}),
  })),
);
