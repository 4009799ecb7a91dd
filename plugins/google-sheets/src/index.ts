import { definePlugin } from '@capture/sdk';
import { googleSheetsGetValues } from './get-values.js';
import { googleProvider } from './provider.js';
import { googleSheetsAddRow, googleSheetsUpdateRow } from './write.js';

export default definePlugin({
  name: '@capture/plugin-google-sheets',
  actions: [googleSheetsAddRow, googleSheetsUpdateRow, googleSheetsGetValues],
  providers: [googleProvider],
});
