import { definePlugin } from '@capture/sdk';
import { ftpDownload } from './ftp-download.js';
import { ftpUpload } from './ftp-upload.js';

export default definePlugin({
  name: '@capture/plugin-ftp',
  actions: [ftpUpload, ftpDownload],
});
