// The files for hosted CI and deployment (.github/workflows/ci.yml, Dockerfile, compose.yaml,
// deploy/nginx.conf) cannot run on this machine (no Docker daemon, no image pulls, no GitHub).
// What can be checked here is checked: they parse, and they say what docs/operating.md says they do.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SERVICE_NODE_FLAGS } from '../core/lifecycle/node-flags.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
}
interface Job {
  services?: Record<string, { image: string; ports?: string[] }>;
  steps: Step[];
  strategy?: { matrix: Record<string, string[]> };
}

describe('.github/workflows/ci.yml', () => {
  const wf = parse(read('.github/workflows/ci.yml')) as { on: unknown; jobs: Record<string, Job> };
  const steps = Object.values(wf.jobs).flatMap((j) => j.steps);

  it('is valid YAML with a trigger and steps that each run or use something', () => {
    expect(wf.on).toBeTruthy();
    expect(Object.keys(wf.jobs)).toEqual(expect.arrayContaining(['typecheck', 'test', 'acceptance', 'image']));
    for (const s of steps) expect(Boolean(s.run) !== Boolean(s.uses), JSON.stringify(s)).toBe(true);
    for (const s of steps.filter((x) => x.uses)) expect(s.uses, 'actions are pinned to a version').toMatch(/^[\w.-]+\/[\w.-]+@v\d+$/);
  });

  it('starts the services the tests talk to, on the ports they use', () => {
    const services = wf.jobs.test!.services!;
    const ports = Object.fromEntries(Object.entries(services).map(([name, s]) => [name, s.ports?.[0]]));
    expect(ports).toEqual({ postgres: '5432:5432', mariadb: '3306:3306', rabbitmq: '5672:5672', nats: '4222:4222' });
  });

  it('runs the typecheck, and npm test without and with MONGODB_URI on a real replica set', () => {
    expect(wf.jobs.typecheck!.steps.some((s) => s.run === 'npm run typecheck')).toBe(true);
    const test = wf.jobs.test!;
    expect(test.strategy!.matrix.store).toEqual(['sqlite', 'mongodb']);
    const npmTest = test.steps.find((s) => s.run === 'npm test')!;
    expect(npmTest.env!.MONGODB_URI).toMatch(/matrix\.store == 'mongodb'.*replicaSet=rs0/);
    const replicaSet = test.steps.find((s) => s.run?.includes('rs.initiate'))!;
    expect(replicaSet.run).toMatch(/mongo:7 --replSet rs0/);
    const gated = test.steps.find((s) => s.run?.includes('core/store/mongo/mongo.test.ts'))!;
    for (const suite of gated.run!.split(' ').filter((w) => w.endsWith('.test.ts'))) expect(fs.existsSync(path.join(ROOT, suite)), suite).toBe(true);
  });

  it('builds the container image, starts it and stops it with SIGTERM', () => {
    const image = wf.jobs.image!.steps.map((s) => s.run ?? '').join('\n');
    expect(image).toMatch(/docker build -t capture-service:ci \./);
    expect(image).toMatch(/docker compose -f compose\.yaml config/);
    expect(image).toMatch(/\/readyz/);
    expect(image).toMatch(/docker stop/);
  });
});

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const lines = text.split('\n').filter((l) => !l.startsWith('#'));

  it('builds in one stage and runs in another, as a user that is not root', () => {
    expect(lines.filter((l) => l.startsWith('FROM ')).length).toBe(2);
    expect(text).toMatch(/RUN npm ci\b/);
    expect(text).toMatch(/npm prune --omit=dev/);
    const user = lines.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBe('USER node');
  });

  it('has a HEALTHCHECK on /healthz, a DATA_DIR volume and the service ports', () => {
    expect(text).toMatch(/HEALTHCHECK [\s\S]*\/healthz/);
    expect(text).toMatch(/DATA_DIR=\/data/);
    expect(text).toMatch(/VOLUME \["\/data"\]/);
    expect(text).toMatch(/^EXPOSE 8084 2525 5300\/udp 5300\/tcp$/m);
  });

  it('runs the service with the node flags npm start gives it', () => {
    const cmd = lines.filter((l) => l.startsWith('CMD ')).at(-1)!;
    expect(JSON.parse(cmd.slice(4))).toEqual(['node', ...SERVICE_NODE_FLAGS, 'dist/core/main.js']);
  });

  it('copies only folders that exist', () => {
    for (const m of text.matchAll(/^COPY --from=build \S+ \/app\/(\S+)/gm)) {
      if (m[1] !== 'dist' && m[1] !== 'node_modules') expect(fs.existsSync(path.join(ROOT, m[1]!)), m[1]).toBe(true);
    }
  });
});

describe('compose.yaml and deploy/nginx.conf', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<string, { image?: string; command?: string[]; environment?: Record<string, string>; volumes?: string[]; networks?: Record<string, { ipv4_address?: string } | null> }>;
  };
  const nginx = read('deploy/nginx.conf');

  it('runs two instances sharing SECRET_KEY and one MongoDB replica set', () => {
    const [a, b] = [compose.services['capture-1']!, compose.services['capture-2']!];
    expect(a.environment!.SECRET_KEY).toMatch(/^\$\{SECRET_KEY:\?/);
    expect(b.environment!.SECRET_KEY).toBe(a.environment!.SECRET_KEY);
    expect(b.environment!.MONGODB_URI).toBe(a.environment!.MONGODB_URI);
    expect(a.environment!.MONGODB_URI).toMatch(/^mongodb:\/\/mongo:27017\/\w+\?replicaSet=rs0$/);
    expect(compose.services.mongo!.command).toEqual(['--replSet', 'rs0', '--bind_ip_all']);
  });

  it('trusts the proxy by its fixed address', () => {
    const proxy = compose.services.proxy!;
    const address = proxy.networks!.capture!.ipv4_address;
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    for (const name of ['capture-1', 'capture-2']) expect(compose.services[name]!.environment!.TRUSTED_PROXIES).toBe(address);
    expect(proxy.volumes).toContain('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
  });

  it('balances both instances, streams SSE unbuffered and passes WebSocket upgrades', () => {
    expect(nginx).toMatch(/server capture-1:8084/);
    expect(nginx).toMatch(/server capture-2:8084/);
    expect(nginx).toMatch(/proxy_buffering off;/);
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(nginx).toMatch(/X-Forwarded-For \$proxy_add_x_forwarded_for/);
  });
});
