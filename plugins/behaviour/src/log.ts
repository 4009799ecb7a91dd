import { defineAction, z } from '@capture/sdk';

export const log = defineAction({
  type: 'log',
  title: 'Log',
  category: 'behaviour',
  description:
    "Adds a line to the request's action output. In markdown mode the line is shown rendered as Markdown. With `error` on, the line is an action error instead: it goes to `custom_action_errors`, sets `$error.<order>$` and lands in the error log.",
  parameters: z.object({
    text: z.string(),
    mode: z
      .enum(['text', 'markdown'])
      .nullish()
      .transform((v) => v ?? 'text'),
    error: z
      .boolean()
      .nullish()
      .transform((v) => v ?? false),
  }),
  execute({ params, log, error }) {
    // Marked as an error it is recorded as one (the chain goes on), like any action's error.
    if (params.error) return error(params.text);
    // Stored as typed: whoever shows the output renders (and sanitises) the Markdown.
    log(params.text, params.mode === 'markdown' ? { markdown: true } : undefined);
  },
});
