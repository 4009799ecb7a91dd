import { defineAction, variableName, z } from '@capture/sdk';

export const storeGlobalVariable = defineAction({
  type: 'store_global_variable',
  title: 'Store Global Variable',
  category: 'logic',
  description: 'Saves (or overwrites) a global variable of the account, available to every URL and schedule.',
  parameters: z.object({
    name: variableName(),
    value: z
      .string()
      .nullish()
      .transform((v) => v ?? ''),
  }),
  sets: ['<name> (global)'],
  untemplated: ['name'],
  async execute({ params, services, log }) {
    await services.globals.set(params.name, params.value);
    log(`Stored global variable $${params.name}$`);
  },
});
