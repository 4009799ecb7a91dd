import { definePlugin } from '@capture/sdk';
import { microsoftDriveDownload } from './drive-download.js';
import { microsoftDriveUpload } from './drive-upload.js';
import { microsoftExcelAddRows } from './excel-add-rows.js';
import { microsoftExcelGetValues } from './excel-get-values.js';
import { microsoftProvider } from './provider.js';

export default definePlugin({
  name: '@capture/plugin-microsoft',
  actions: [microsoftDriveUpload, microsoftDriveDownload, microsoftExcelAddRows, microsoftExcelGetValues],
  providers: [microsoftProvider],
});
