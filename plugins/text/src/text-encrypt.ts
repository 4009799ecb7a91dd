import { defineAction, secret, variableName, z } from '@capture/sdk';
import { encrypt } from './secretbox.js';

export const textEncrypt = defineAction({
  type: 'text_encrypt',
  title: 'Encrypt Text',
  category: 'text',
  description: 'Encrypts text with a password (XSalsa20-Poly1305, key derived with scrypt) and stores it as base64 in a variable. Decrypt Text reverses it.',
  parameters: z.object({
    source: z.string(),
    password: secret(z.string().min(1)),
    variable_name: variableName().default('encrypted'),
  }),
  sets: ['<variable_name>'],
  untemplated: ['variable_name'],
  async execute({ params, vars, log }) {
    vars.set(params.variable_name, await encrypt(params.source, params.password));
    log(`Encrypted text stored in $${params.variable_name}$`);
  },
});
