import { defineAction, variableName, z } from '@capture/sdk';

export const textReplace = defineAction({
  type: 'text_replace',
  title: 'Replace Text',
  category: 'text',
  description: 'Replaces every occurrence of each search text with its replacement, in order, and stores the result. Variables are replaced in the source, the search texts and the replacements.',
  parameters: z.object({
    source: z.string(),
    variable_name: variableName(),
    replacements: z
      .array(
        z.object({
          search: z.string().min(1),
          replace: z
            .string()
            .nullish()
            .transform((v) => v ?? ''),
        }),
      )
      .min(1),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  execute({ params, vars, log }) {
    let text = params.source;
    let count = 0;
    for (const { search, replace } of params.replacements) {
      const parts = text.split(search);
      count += parts.length - 1;
      text = parts.join(replace);
    }
    vars.set(params.variable_name, text);
    log(`Replaced ${count} occurrence${count === 1 ? '' : 's'}; result in $${params.variable_name}$`);
  },
});
