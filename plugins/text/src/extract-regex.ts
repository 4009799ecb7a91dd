import { boolean, defineAction, optionalText, variableName, z } from '@capture/sdk';
import { parseRegex, regexExec, regexMatchAll } from '@capture/sdk/regex';

const pick = (m: RegExpExecArray) => m[1] ?? m[0];

export const extractRegex = defineAction({
  type: 'extract_regex',
  title: 'Extract Regex',
  category: 'text',
  description:
    'Runs a regular expression (`/pattern/flags` or a bare pattern) on the source and stores the first capture group, or the whole match, in a variable; every group is also stored as <variable_name>.<n> and named groups by name.',
  parameters: z.object({
    regex: z.string().min(1),
    variable_name: variableName(),
    source: optionalText().describe('default the request body'),
    default: optionalText().describe('Value when nothing matches'),
    repeat: boolean().optional().describe('Run the following actions once per match'),
  }),
  sets: ['<variable_name>', '<variable_name>.<group>'],
  untemplated: ['variable_name'],
  execute({ params, request, vars, log, repeat }) {
    let re: RegExp;
    try {
      re = parseRegex(params.regex);
    } catch (e) {
      throw new Error(`Invalid regular expression: ${(e as Error).message}`);
    }
    const source = params.source ?? request.content;
    const name = params.variable_name;
    if (params.repeat) {
      const all = regexMatchAll(re, source);
      repeat(all.map((m) => ({ [name]: pick(m) })));
      return log(`Repeating the following actions for ${all.length} matches`);
    }
    const m = regexExec(re, source);
    if (!m) {
      if (params.default !== undefined) vars.set(name, params.default);
      return log(`No match${params.default !== undefined ? `; $${name}$ set to the default` : ''}`);
    }
    vars.set(name, pick(m));
    m.forEach((g, i) => vars.set(`${name}.${i}`, g ?? ''));
    for (const [group, value] of Object.entries(m.groups ?? {})) vars.set(`${name}.${group}`, value ?? '');
    log(`Set $${name}$ to ${JSON.stringify(pick(m))}`);
  },
});
