import { boolean, defineAction, integer, z } from '@capture/sdk';
import { headerLines, setResponseHeader } from '@capture/sdk/headers';

export const modifyResponse = defineAction({
  type: 'modify_response',
  title: 'Modify Response',
  category: 'behaviour',
  // Only meaningful inline: it changes the answer to the capture or whether the capture is stored.
  queueable: false,
  description: 'Sets the response body, status code and headers (one "Name: value" per line). For a redirect leave the body empty, add "Location: https://..." and use status 302. With stop, no further actions run.',
  parameters: z.object({
    content: z.string().nullish().describe('The response body; absent keeps the current one, empty makes it empty'),
    status: z
      .union([integer({ min: 100, max: 599, message: 'must be an HTTP status code' }), z.literal('').transform(() => undefined)])
      .nullish()
      .describe('An HTTP status code; empty keeps the current one'),
    headers: headerLines(),
    stop: boolean().nullish(),
  }),
  execute({ params, response, log, stop }) {
    const { headers } = params;
    if (params.content !== null && params.content !== undefined) response.content = params.content;
    if (params.status) response.status = params.status;
    for (const [name, value] of headers) setResponseHeader(response, name, value);
    log(`Response set: status ${response.status}${headers.length ? `, ${headers.length} header${headers.length === 1 ? '' : 's'}` : ''}`);
    if (params.stop) stop();
  },
});
