import { compare, OPERATOR_LABELS, VALUE_OPERATORS } from '@capture/sdk/operators';
import { defineAction, variableName, z } from '@capture/sdk';

export const textMap = defineAction({
  type: 'text_map',
  title: 'Map Text',
  category: 'text',
  description: 'Sets a variable to the "to" value of the first mapping whose "from" matches the source by the operator (the Conditions operators), or to the default.',
  parameters: z.object({
    source: z.string(),
    operator: z.enum(VALUE_OPERATORS),
    variable_name: variableName(),
    default: z
      .string()
      .nullish()
      .transform((v) => v ?? ''),
    mappings: z
      .array(
        z.object({
          from: z
            .string()
            .nullish()
            .transform((v) => v ?? ''),
          to: z
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
    const hit = params.mappings.find((m) => compare(params.operator, params.source, m.from));
    const value = hit ? hit.to : params.default;
    vars.set(params.variable_name, value);
    log(
      hit
        ? `${JSON.stringify(params.source)} ${OPERATOR_LABELS[params.operator]} ${JSON.stringify(hit.from)}: $${params.variable_name}$ set to ${JSON.stringify(value)}`
        : `No mapping matched: $${params.variable_name}$ set to the default ${JSON.stringify(value)}`,
    );
  },
});
