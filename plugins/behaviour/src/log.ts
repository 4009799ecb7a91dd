import { defineAction, z } from '@capture/sdk';

export const log = defineAction({
  type: 'log',
  title: 'Log',
  category: 'behaviour',
  description: "Adds a line to the request's action output. In markdown mode the line is shown rendered as Markdown.",
  parameters: z.object({
    text: z.string(),
    mode: z
      .enum(['text', 'markdown'])
      .nullish()
      .transform((v) => v ?? 'text'),
  }),
  execute({ params, log }) {
    // Stored as typed: whoever shows the output renders (and sanitises) the Markdown.
    log(params.text, params.mode === 'markdown' ? { markdown: true } : undefined);
  },
});
