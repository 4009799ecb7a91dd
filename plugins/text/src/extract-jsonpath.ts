import { JSONPath } from 'jsonpath-plus';
import { boolean, defineAction, optionalText, variableName, z } from '@capture/sdk';
import { leafText, normaliseJsonPath, parseJson } from './json-vars.js';

// Deprecated in favour of Extract JSON: existing actions still run, new ones cannot be created.
export const extractJsonpath = defineAction({
  type: 'extract_jsonpath',
  title: 'Extract JSONPath',
  category: 'text',
  description: 'Runs a JSONPath query on a JSON document and stores the result in a variable (deprecated: use Extract JSON).',
  creatable: false,
  parameters: z.object({
    jsonpath: z.string().min(1),
    variable_name: variableName(),
    source: optionalText().describe('default the request body'),
    default: optionalText().describe('Value when nothing matches'),
    repeat: boolean().optional().describe('Run the following actions once per match'),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  execute({ params, request, vars, log, repeat }) {
    const doc = parseJson(params.source ?? request.content);
    const matches = JSONPath({ path: normaliseJsonPath(params.jsonpath), json: doc as object, wrap: true, eval: 'safe' }) as unknown[];
    const name = params.variable_name;
    if (matches.length === 0) {
      if (params.default !== undefined) vars.set(name, params.default);
      log(`No match for ${params.jsonpath}${params.default !== undefined ? `; $${name}$ set to the default` : ''}`);
      return;
    }
    if (params.repeat) {
      repeat(matches.map((m) => ({ [name]: leafText(m) })));
      log(`Repeating the following actions for ${matches.length} matches`);
      return;
    }
    const value = matches.length === 1 ? leafText(matches[0]) : JSON.stringify(matches);
    vars.set(name, value);
    log(`Set $${name}$ from ${matches.length} match${matches.length === 1 ? '' : 'es'}`);
  },
});
