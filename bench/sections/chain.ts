// Issue 4: the time a 5-action text/logic chain adds to one capture (goal: < 1 ms median).
// A token with `actions: true` and auto_json -> conditions -> set_variable -> text_replace -> log,
// against a plain token (actions off), on the same service, one request at a time (see overhead.ts).
import { firstAnswer, startService, type BenchContext, type Goal, type Section, type SectionResult } from '../harness.js';
import { addedGoal, addedLine, compare, createChain, measureSequential, newestRequest, overheadRequests, overheadWarmup, statsLine, type ActionSpec } from './overhead.js';

export const CHAIN_GOAL_MS = 1;
const REQUEST_LIMIT = 10_000;

/** The bench body is {"event":"order.created",...,"amount":19.99,...,"customer":{"id":"cus_42"}}. */
export const CHAIN: ActionSpec[] = [
  { type: 'auto_json', parameters: { source: '$request.content$', variable_name: 'json' } },
  { type: 'conditions', parameters: { mode: 'all', action: 'continue', conditions: [{ input: '$json.event$', operator: 'eq', value: 'order.created' }] } },
  { type: 'set_variable', parameters: { name: 'customer', value: '$json.customer.id$' } },
  { type: 'text_replace', parameters: { source: '$json.event$', variable_name: 'event_name', replacements: [{ search: '.', replace: ' ' }] } },
  { type: 'log', parameters: { text: 'bench chain: $event_name$ for $customer$, amount $json.amount$' } },
];
/** What the log action must have stored for the bench body. */
export const EXPECTED_LOG = 'bench chain: order created for cus_42, amount 19.99';

export const chainSection: Section = {
  name: 'chain',
  title: 'Action chain: added latency of 5 text/logic actions per capture (sequential, one connection)',
  async run(ctx: BenchContext): Promise<SectionResult> {
    const { settings } = ctx;
    const svc = await startService({}, settings.serviceNodeArgs);
    const runErrors: string[] = [];
    try {
      const plain = await svc.createToken({ request_limit: REQUEST_LIMIT });
      const chain = await svc.createToken({ request_limit: REQUEST_LIMIT, actions: true });
      await createChain(svc, chain, CHAIN);
      const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: settings.body };
      await firstAnswer(`${svc.url}/${plain}`, init);
      await firstAnswer(`${svc.url}/${chain}`, init);

      const requests = overheadRequests();
      const warmup = overheadWarmup();
      ctx.log(`chain: ${warmup} warm-up + ${requests} measured requests per token, interleaved, one connection`);
      const run = await measureSequential(svc.url, [{ label: 'plain', path: `/${plain}` }, { label: 'chain', path: `/${chain}` }], { requests, warmup, body: settings.body });
      runErrors.push(...run.problems.map((p) => `chain: ${p}`));

      const stored = await newestRequest(svc, chain);
      // Output lines carry the action's place and type: "[5 log] bench chain: ...".
      const ran = stored.custom_action_output.some((l) => l === EXPECTED_LOG || l.endsWith(`] ${EXPECTED_LOG}`));
      if (!ran) runErrors.push(`chain: the stored request's custom_action_output lacks ${JSON.stringify(EXPECTED_LOG)}: ${JSON.stringify(stored.custom_action_output)}`);
      if (stored.custom_action_errors.length) runErrors.push(`chain: the chain reported errors: ${JSON.stringify(stored.custom_action_errors)}`);

      const code = await svc.stop();
      if (code !== 0) runErrors.push(`chain: the service exited with ${code} on SIGTERM\n${svc.output()}`);

      const c = compare(run, 'chain', 'plain');
      const goals: Goal[] = [
        addedGoal('5-action text/logic chain, added per capture', c, CHAIN_GOAL_MS),
        { name: 'chain ran (log line in custom_action_output)', target: 'yes', actual: ran ? 'yes' : 'no', pass: ran },
      ];
      return {
        metrics: {
          method: 'sequential single POSTs on one keep-alive connection, tokens interleaved with rotating order; added = median(chain) - median(plain)',
          actions: CHAIN.map((a) => a.type),
          warmupPerToken: warmup,
          requestsPerToken: requests,
          seconds: run.seconds,
          plain: run.stats.plain,
          chain: run.stats.chain,
          added: c,
          goalMs: CHAIN_GOAL_MS,
          storedOutput: stored.custom_action_output,
        },
        goals,
        lines: [
          statsLine('plain token', run.stats.plain!),
          statsLine('5-action chain', run.stats.chain!),
          addedLine(c),
          `actions     ${CHAIN.map((a) => a.type).join(' -> ')}; stored output ends with ${JSON.stringify(stored.custom_action_output.at(-1) ?? null)}`,
        ],
        runErrors,
      };
    } finally {
      await svc.stop();
    }
  },
};
