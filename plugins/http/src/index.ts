import { definePlugin } from '@capture/sdk';
import { getRequests } from './get-requests.js';
import { httpRequest } from './http.js';
import { sendRequest } from './send-request.js';

export default definePlugin({
  name: '@capture/plugin-http',
  actions: [httpRequest, sendRequest, getRequests],
});
