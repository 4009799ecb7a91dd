import { definePlugin } from '@capture/sdk';
import { openapiMock } from './openapi-mock.js';

export default definePlugin({ name: '@capture/plugin-mock', actions: [openapiMock] });
