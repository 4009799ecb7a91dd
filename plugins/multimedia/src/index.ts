import { definePlugin } from '@capture/sdk';
import { imageResize } from './image-resize.js';
import { pdfGenerate } from './pdf-generate.js';

export default definePlugin({
  name: '@capture/plugin-multimedia',
  actions: [pdfGenerate, imageResize],
});
