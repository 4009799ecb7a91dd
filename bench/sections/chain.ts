// What a 5-action text/logic chain costs a capture. A token with `actions: true`
// and auto_json -> conditions -> set_variable -> text_replace -> log, against a plain token
// (actions off), on the same service: the added latency one request at a time (see overhead.ts,
// goal < 0.3 ms median), then throughput at BENCH_CONNECTIONS (32) connections in paired windows,
// plain then chain, so both see the machine as it was (goal: the chain keeps >= 0.5x).
import { firstAnswer, fmt, load, loadErrors, mergeMeasurements, quiet, startService, warmUp, type BenchContext, type Goal, type Measurement, type Section, type SectionResult } from '../harness.js';
import { addedGoal, addedLine, compare, createChain, measureSequential, newestRequest, overheadRequests, overheadWarmup, statsLine, type ActionSpec } from './overhead.js';

export const CHAIN_GOAL_MS = 0.3;
/** Throughput of the chain token at 32 connections, as a share of the plain token's. */
export const CHAIN_THROUGHPUT_GOAL = 0.5;
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
  title: 'Action chain: 5 text/logic actions per capture (added latency on one connection, throughput under load)',
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
      const run = await measureSequential(
        svc.url,
        [
          { label: 'plain', path: `/${plain}` },
          { label: 'chain', path: `/${chain}` },
        ],
        { requests, warmup, body: settings.body },
      );
      runErrors.push(...run.problems.map((p) => `chain: ${p}`));

      // Throughput: paired windows, plain then chain, each after the service went quiet.
      const headers = { 'Content-Type': 'application/json' };
      const loadOf = (token: string, seconds: number) => ({ url: svc.url, path: `/${token}`, connections: settings.connections, body: settings.body, headers, seconds, serverPid: svc.proc.pid });
      runErrors.push(...(await warmUp('chain: plain warm-up', loadOf(plain, settings.warmupSeconds))), ...(await warmUp('chain: chain warm-up', loadOf(chain, settings.warmupSeconds))));
      const windowS = Math.max(1, Math.round(settings.seconds / settings.rounds));
      ctx.log(`chain: throughput, ${settings.rounds} x ${windowS} s per token, plain then chain, ${settings.connections} connections`);
      const plainRuns: Measurement[] = [];
      const chainRuns: Measurement[] = [];
      for (let round = 0; round < settings.rounds; round++) {
        await quiet(svc.proc.pid!);
        plainRuns.push(await load(loadOf(plain, windowS)));
        await quiet(svc.proc.pid!);
        chainRuns.push(await load(loadOf(chain, windowS)));
      }
      const plainLoad = mergeMeasurements(plainRuns);
      const chainLoad = mergeMeasurements(chainRuns);
      runErrors.push(...loadErrors('chain: plain token under load', plainLoad), ...loadErrors('chain: chain token under load', chainLoad));
      const throughputRatio = plainLoad.rps > 0 ? chainLoad.rps / plainLoad.rps : null;
      const roundRatios = chainRuns.map((c, i) => (plainRuns[i]!.rps > 0 ? c.rps / plainRuns[i]!.rps : 0));

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
        {
          name: `chain token throughput vs plain token (${settings.connections} connections, paired windows)`,
          target: `>= ${CHAIN_THROUGHPUT_GOAL}x`,
          actual: throughputRatio === null ? 'n/a' : `${throughputRatio.toFixed(2)}x`,
          pass: throughputRatio !== null && throughputRatio >= CHAIN_THROUGHPUT_GOAL,
        },
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
          throughput: {
            method: `${settings.rounds} paired windows of ${windowS} s at ${settings.connections} connections, plain token then chain token, each after the service went quiet`,
            plain: plainLoad,
            chain: chainLoad,
            ratio: throughputRatio,
            rounds: chainRuns.map((c, i) => ({ plain: plainRuns[i]!.rps, chain: c.rps, ratio: roundRatios[i] })),
            goal: CHAIN_THROUGHPUT_GOAL,
          },
          storedOutput: stored.custom_action_output,
        },
        goals,
        lines: [
          statsLine('plain token', run.stats.plain!),
          statsLine('5-action chain', run.stats.chain!),
          addedLine(c),
          `throughput  plain ${fmt.int(plainLoad.rps)}/s, chain ${fmt.int(chainLoad.rps)}/s at ${settings.connections} connections: ${throughputRatio === null ? 'n/a' : throughputRatio.toFixed(2) + 'x'} (rounds ${roundRatios.map((r) => r.toFixed(2)).join(', ')})`,
          `server CPU  plain ${fmt.cpu(plainLoad)}; chain ${fmt.cpu(chainLoad)}`,
          `latency     plain ${fmt.latency(plainLoad)}; chain ${fmt.latency(chainLoad)}`,
          `actions     ${CHAIN.map((a) => a.type).join(' -> ')}; stored output ends with ${JSON.stringify(stored.custom_action_output.at(-1) ?? null)}`,
        ],
        runErrors,
      };
    } finally {
      await svc.stop();
    }
  },
};
