import { definePlugin } from '@capture/sdk';
import { dropboxCreateFolder } from './create-folder.js';
import { dropboxDelete } from './delete.js';
import { dropboxDownloadFile } from './download-file.js';
import { dropboxGetLink } from './get-link.js';
import { dropboxProvider } from './provider.js';
import { dropboxUploadFile } from './upload-file.js';

export default definePlugin({
  name: '@capture/plugin-dropbox',
  actions: [dropboxCreateFolder, dropboxDelete, dropboxDownloadFile, dropboxGetLink, dropboxUploadFile],
  providers: [dropboxProvider],
});
