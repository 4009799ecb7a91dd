import { boolean, defineAction, variableName, z } from '@capture/sdk';

export const MAX_SPLIT_PARTS = 1024;

export const textSplit = defineAction({
  type: 'text_split',
  title: 'Split Text',
  category: 'text',
  description: 'Splits the source by a delimiter into $<variable_name>.1$, $<variable_name>.2$... (at most 1024). A delimiter of \\n splits by line.',
  parameters: z.object({
    source: z.string(),
    delimiter: z.string().min(1),
    variable_name: variableName().default('split'),
    repeat: boolean().optional().describe('Run the following actions once per part, with the part in $<variable_name>$'),
  }),
  sets: ['<variable_name>.1', '<variable_name>.2', '...'],
  untemplated: ['variable_name'],
  execute({ params, vars, log, repeat }) {
    const sep = params.delimiter === '\\n' || params.delimiter === '\n' ? /\r?\n/ : params.delimiter;
    const parts = params.source.split(sep, MAX_SPLIT_PARTS);
    const name = params.variable_name;
    if (params.repeat) {
      repeat(parts.map((part) => ({ [name]: part })));
      return log(`Repeating the following actions for ${parts.length} parts`);
    }
    parts.forEach((part, i) => vars.set(`${name}.${i + 1}`, part));
    log(`Split into ${parts.length} variable${parts.length === 1 ? '' : 's'}: $${name}.1$ to $${name}.${parts.length}$`);
  },
});
