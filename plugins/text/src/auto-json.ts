import { JSONPath } from 'jsonpath-plus';
import { defineAction, optionalText, variableName, z } from '@capture/sdk';
import { flattenJson, normaliseJsonPath, parseJson } from './json-vars.js';

export const autoJson = defineAction({
  type: 'auto_json',
  title: 'Extract JSON',
  category: 'text',
  description: 'Creates a variable for every value of a JSON document, named by its keys and indices joined with dots ($json.order.items.0.sku$).',
  parameters: z.object({
    source: optionalText().describe('The JSON document; default the request body'),
    jsonpath: optionalText().describe('Only the part of the document this JSONPath selects; names then start with the match index'),
    variable_name: variableName().default('json'),
  }),
  sets: ['<variable_name>', '<variable_name>.<key>...'],
  untemplated: ['variable_name'],
  execute({ params, request, vars, log }) {
    const doc = parseJson(params.source ?? request.content);
    const prefix = params.variable_name;
    let selected: unknown = doc;
    if (params.jsonpath?.trim()) {
      // The safe evaluator interprets filter scripts itself: no eval of user code.
      selected = JSONPath({ path: normaliseJsonPath(params.jsonpath), json: doc as object, wrap: true, eval: 'safe' }) as unknown[];
    }
    // The whole (selected) document too, so `$json.order$` gives the order as JSON.
    vars.set(prefix, JSON.stringify(selected));
    const count = flattenJson(selected, prefix, (name, value) => vars.set(name, value));
    log(`Created ${count} variable${count === 1 ? '' : 's'} under $${prefix}$`);
  },
});
