import { definePlugin } from '@capture/sdk';
import { autoJson } from './auto-json.js';
import { extractJsonpath } from './extract-jsonpath.js';
import { extractRegex } from './extract-regex.js';
import { extractXpath } from './extract-xpath.js';
import { textDecrypt } from './text-decrypt.js';
import { textEncrypt } from './text-encrypt.js';
import { textMap } from './text-map.js';
import { textReplace } from './text-replace.js';
import { textSplit } from './text-split.js';
import { validateJson } from './validate-json.js';

export default definePlugin({
  name: '@capture/plugin-text',
  actions: [autoJson, extractJsonpath, validateJson, extractRegex, extractXpath, textReplace, textSplit, textMap, textEncrypt, textDecrypt],
});
