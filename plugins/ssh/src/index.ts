import { definePlugin } from '@capture/sdk';
import { sftpDownload } from './sftp-download.js';
import { sftpUpload } from './sftp-upload.js';
import { sshKey } from './ssh-key.js';
import { sshRunCommand } from './ssh-run-command.js';

export default definePlugin({
  name: '@capture/plugin-ssh',
  actions: [sshRunCommand, sftpUpload, sftpDownload],
  providers: [sshKey],
});
