// The workflow step form of a token's redaction setting: the same rules (@capture/sdk/redaction),
// applied to the stored request from within a chain, e.g. only when a condition before it passed.
import { ActionRedactionRuleSchema, DEFAULT_REPLACEMENT } from '@capture/sdk/redaction';
import { defineAction, z } from '@capture/sdk';

export const redact = defineAction({
  type: 'redact',
  title: 'Redact',
  category: 'request',
  description:
    'Masks header values, query and form fields, JSON fields (JSONPath) and text matching a pattern or a preset (bearer tokens, card numbers, e-mail addresses) in the request as it is stored, streamed and exported. The actions of this run still see the original values.',
  parameters: z.object({
    rules: z.array(ActionRedactionRuleSchema).min(1).max(50).describe("Redaction rules, as in the token's `redaction.rules` (without actions_see_original)"),
    replacement: z.string().max(200).default(DEFAULT_REPLACEMENT).describe('Mask text of the rules that set none'),
  }),
  // Patterns and JSONPaths are taken as typed: `$...$` in them is not a variable.
  untemplated: ['rules'],
  execute({ params, redact: apply, log }) {
    apply(params.rules, params.replacement);
    log(`The request will be stored with ${params.rules.length} redaction rule${params.rules.length === 1 ? '' : 's'} applied`);
  },
});
