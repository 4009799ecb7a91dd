import { defineAction, secret, variableName, z } from '@capture/sdk';
import { decrypt } from './secretbox.js';

export const textDecrypt = defineAction({
  type: 'text_decrypt',
  title: 'Decrypt Text',
  category: 'text',
  description: 'Decrypts text made by Encrypt Text with the same password and stores it in a variable.',
  parameters: z.object({
    source: z.string().min(1),
    password: secret(z.string().min(1)),
    variable_name: variableName().default('decrypted'),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute({ params, vars, log }) {
    vars.set(params.variable_name, await decrypt(params.source, params.password));
    log(`Decrypted text stored in $${params.variable_name}$`);
  },
});
