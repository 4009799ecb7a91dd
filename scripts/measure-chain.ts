// In-process cost of the bench's 5-action chain: runChain alone, with the built-in
// plugins, no HTTP and no store. Prints CPU and wall µs per run (median of several batches).
// Usage: npx tsx scripts/measure-chain.ts [runs per batch=5000] [batches=7], or compiled (closer to
// the server, and profilable): node scripts/build.mjs && node --cpu-prof dist/scripts/measure-chain.js
import { CHAIN, EXPECTED_LOG } from '../bench/sections/chain.js';
import { loadPlugins } from '../core/actions/loader.js';
import { runChain, type ChainAction } from '@capture/sdk/runner';
import { silentLogger, TEST_TOKEN, testRequest, testServices } from '@capture/sdk/testing';

const perBatch = Number(process.argv[2] ?? 5000);
const batches = Number(process.argv[3] ?? 7);
const { registry } = await loadPlugins({ logger: silentLogger });

const body = JSON.stringify({ event: 'order.created', id: 'evt_1', amount: 19.99, currency: 'EUR', customer: { id: 'cus_42', email: 'a@example.com' } });
const request = testRequest({ content: body });
const rawBody = Buffer.from(body);
const services = testServices();
await services.globals.set('region', 'eu');
// Deep-frozen, as the steps cache hands them out.
const deepFreeze = <T>(v: T): T => {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
};
const actions: ChainAction[] = deepFreeze(CHAIN.map((a, i) => ({ uuid: `00000000-0000-4000-8000-00000000000${i}`, type: a.type, order: i + 1, parameters: structuredClone(a.parameters) })));

async function once() {
  const r = await runChain({ token: TEST_TOKEN, request, rawBody, actions, services, registry });
  if (r.errors.length || !r.output.at(-1)?.endsWith(EXPECTED_LOG)) throw new Error(`unexpected run: ${JSON.stringify(r.output)} ${JSON.stringify(r.errors)}`);
  return r;
}

for (let i = 0; i < 2000; i++) await once();
// CPU time (user + system) as well as wall time: on a loaded machine the wall time mostly measures the neighbours.
const wall: number[] = [];
const cpu: number[] = [];
for (let b = 0; b < batches; b++) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < perBatch; i++) await once();
  wall.push(Number(process.hrtime.bigint() - t0) / 1000 / perBatch);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / perBatch);
}
const summary = (xs: number[]) => {
  xs.sort((a, b) => a - b);
  return `median ${xs[xs.length >> 1]!.toFixed(1)} µs (range ${xs[0]!.toFixed(1)}-${xs.at(-1)!.toFixed(1)})`;
};
console.log(`runChain, 5 actions, per run: CPU ${summary(cpu)}; wall ${summary(wall)}`);
