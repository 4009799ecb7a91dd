import { JSONPath } from 'jsonpath-plus';
import { boolean, defineAction, optionalText, variableName, z } from '@capture/sdk';
import { MAX_JSON_VARIABLES, flattenJson, leafText, normaliseJsonPath, parseJson } from './json-vars.js';

/** The runner repeats at most this many times. */
const MAX_REPEAT_ITEMS = 1000;

/**
 * What Repeat loops over: the array selected (one JSONPath match that is an array, or the document
 * itself), else the JSONPath's matches, else the one document.
 */
function loopItems(selected: unknown, byPath: boolean): unknown[] {
  if (byPath) {
    const matches = selected as unknown[];
    return matches.length === 1 && Array.isArray(matches[0]) ? matches[0] : matches;
  }
  return Array.isArray(selected) ? selected : [selected];
}

export const autoJson = defineAction({
  type: 'auto_json',
  title: 'Extract JSON',
  category: 'text',
  description:
    'Creates a variable for every value of a JSON document, named by its keys and indices joined with dots ($json.order.items.0.sku$). Repeat runs the following actions once per item of the array the JSONPath selects (or of the document, when it is an array; a JSONPath with several matches loops over the matches), with the item in $<variable_name>$ and its values in $<variable_name>.<key>$ (at most 1000 items).',
  parameters: z.object({
    source: optionalText().describe('The JSON document; default the request body'),
    jsonpath: optionalText().describe('Only the part of the document this JSONPath selects; names then start with the match index'),
    variable_name: variableName().default('json'),
    repeat: boolean().optional().describe('Run the following actions once per item of the selected array'),
  }),
  sets: ['<variable_name>', '<variable_name>.<key>...'],
  untemplated: ['variable_name'],
  execute({ params, request, vars, log, repeat }) {
    const doc = parseJson(params.source ?? request.content);
    const prefix = params.variable_name;
    let selected: unknown = doc;
    const path = params.jsonpath?.trim();
    if (path) {
      // The safe evaluator interprets filter scripts itself: no eval of user code.
      selected = JSONPath({ path: normaliseJsonPath(path), json: doc as object, wrap: true, eval: 'safe' }) as unknown[];
    }
    if (params.repeat) {
      const items = loopItems(selected, !!path);
      // One budget of variables for all the items, as for one document.
      let left = MAX_JSON_VARIABLES;
      const perItem = items.slice(0, MAX_REPEAT_ITEMS).map((item) => {
        const set: Record<string, string> = { [prefix]: leafText(item) };
        if (left > 0) left -= flattenJson(item, prefix, (name, value) => void (set[name] = value));
        return set;
      });
      repeat(perItem);
      log(`Repeating the following actions for ${perItem.length} item${perItem.length === 1 ? '' : 's'}${items.length > perItem.length ? ` (of ${items.length}: at most ${MAX_REPEAT_ITEMS})` : ''}`);
      return;
    }
    // The whole (selected) document too, so `$json.order$` gives the order as JSON.
    vars.set(prefix, JSON.stringify(selected));
    const count = flattenJson(selected, prefix, (name, value) => vars.set(name, value));
    log(`Created ${count} variable${count === 1 ? '' : 's'} under $${prefix}$`);
  },
});
