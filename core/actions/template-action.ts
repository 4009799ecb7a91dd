// The `template` action (Include Template) and its run-time form. The runtime expands a template
// step into `template_include` + the template's actions before the chain runs (TemplateService);
// a `template` step still present at run time could not be included and reports why.
import { defineAction, z } from '@capture/sdk';

const Variables = z.array(z.object({ name: z.string().min(1).max(64), value: z.coerce.string() })).max(100);

export const templateAction = defineAction({
  type: 'template',
  title: 'Include Template',
  category: 'template',
  description: 'Runs the actions of one of your templates here, after setting its variables (and the ones given, which win).',
  parameters: z.object({
    template_id: z.coerce.number().int().positive().describe('The id of one of your templates (Templates API)'),
    variables: Variables.nullish().describe("Variables ({name, value}) set after the template's own, so they win"),
    unavailable: z.string().optional().describe('Internal: set by the service when the template cannot be included'),
  }),
  untemplated: ['template_id'],
  execute({ params }) {
    throw new Error(params.unavailable ?? `Template ${params.template_id} could not be included`);
  },
});

export const templateIncludeAction = defineAction({
  type: 'template_include',
  title: 'Template variables',
  category: 'template',
  description: 'Internal: the start of an included template; sets its variables.',
  creatable: false,
  parameters: z.object({ template_id: z.number().int(), name: z.string(), variables: Variables }),
  execute({ params, vars, log }) {
    for (const v of params.variables) vars.set(v.name, v.value);
    log(`Included template "${params.name}" (${params.template_id})`);
  },
});
