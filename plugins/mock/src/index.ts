import { definePlugin } from '../../../core/sdk/index.js';
import { openapiMock } from './openapi-mock.js';

export default definePlugin({ name: '@capture/plugin-mock', actions: [openapiMock] });
