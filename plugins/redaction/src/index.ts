import { definePlugin } from '../../../core/sdk/index.js';
import { redact } from './redact.js';

export default definePlugin({ name: '@capture/plugin-redaction', actions: [redact] });
