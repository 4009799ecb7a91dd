// Keeps a fuzzed service on this machine: the fuzzer makes actions, schedules and forwards with
// whatever URLs and host names it invents, and none of them may reach past loopback. Host names
// other than `localhost` do not resolve (no DNS query leaves), and sockets, UDP datagrams and DNS
// resolvers for any other address fail as a refused connection would. Plain JavaScript, so a
// service process loads it with `node --import <this file>` (with FUZZ_LOOPBACK_ONLY=1) before
// anything else; the in-process fuzzer calls guardLoopbackOnly().
import dgram from 'node:dgram';
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const isLoopback = (address) => {
  const a = String(address)
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  return a === 'localhost' || a === '::1' || a === '::ffff:127.0.0.1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(a);
};

const refused = (what) => Object.assign(new Error(`loopback only: ${what} refused`), { code: 'ECONNREFUSED' });
const notFound = (host) => Object.assign(new Error(`loopback only: ${host} is not resolved`), { code: 'ENOTFOUND', hostname: host });

/** Installs the guard; returns what removes it. */
export function guardLoopbackOnly() {
  const saved = [];
  const replace = (owner, name, make) => {
    if (typeof owner[name] !== 'function') return;
    const original = owner[name];
    saved.push(() => (owner[name] = original));
    owner[name] = make(original);
  };

  replace(
    dns,
    'lookup',
    (original) =>
      function (host, options, callback) {
        const cb = typeof options === 'function' ? options : callback;
        if (host && net.isIP(host) === 0 && String(host).toLowerCase() !== 'localhost') return process.nextTick(cb, notFound(host));
        return original.apply(this, arguments);
      },
  );
  replace(
    dns.promises,
    'lookup',
    (original) =>
      function (host, ...rest) {
        if (host && net.isIP(host) === 0 && String(host).toLowerCase() !== 'localhost') return Promise.reject(notFound(host));
        return original.call(this, host, ...rest);
      },
  );
  // Resolvers query name servers directly: none is loopback here.
  const resolverMethods = ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCaa', 'resolveCname', 'resolveMx', 'resolveNaptr', 'resolveNs', 'resolvePtr', 'resolveSoa', 'resolveSrv', 'resolveTxt', 'reverse'];
  for (const name of resolverMethods) {
    replace(
      dns,
      name,
      () =>
        function (host, ...rest) {
          process.nextTick(rest.at(-1), notFound(host));
        },
    );
    replace(
      dns.Resolver.prototype,
      name,
      () =>
        function (host, ...rest) {
          process.nextTick(rest.at(-1), notFound(host));
        },
    );
    replace(dns.promises, name, () => (host) => Promise.reject(notFound(host)));
    replace(dns.promises.Resolver.prototype, name, () => (host) => Promise.reject(notFound(host)));
  }
  replace(
    net.Socket.prototype,
    'connect',
    (original) =>
      function (...args) {
        // net.connect passes its normalised arguments as one array.
        const first = Array.isArray(args[0]) ? args[0][0] : args[0];
        const options = first && typeof first === 'object' ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
        const host = options.path !== undefined ? 'localhost' : (options.host ?? 'localhost');
        // A host name goes through lookup (guarded above, or the caller's own policy lookup): check what it resolves to.
        if (net.isIP(host) !== 0 && !isLoopback(host)) {
          process.nextTick(() => this.destroy(refused(`${host}:${options.port}`)));
          return this;
        }
        if (net.isIP(host) === 0 && !isLoopback(host)) {
          const lookup = options.lookup ?? dns.lookup;
          options.lookup = (name, opts, cb) =>
            lookup(name, opts, (err, address, family) => {
              if (err) return cb(err, address, family);
              const all = Array.isArray(address) ? address : [{ address, family }];
              if (all.some((a) => !isLoopback(a.address))) return cb(refused(`${name}`));
              cb(null, address, family);
            });
          if (first !== options) return original.call(this, options, ...args.filter((a) => typeof a === 'function'));
          if (Array.isArray(args[0])) return original.apply(this, args);
        }
        return original.apply(this, args);
      },
  );
  replace(
    dgram.Socket.prototype,
    'send',
    (original) =>
      function (...args) {
        const address = args.find((a, i) => i > 0 && typeof a === 'string');
        if (address !== undefined && !isLoopback(address)) {
          const cb = args.at(-1);
          if (typeof cb === 'function') process.nextTick(cb, refused(address));
          return;
        }
        return original.apply(this, args);
      },
  );
  // Named imports (`import { lookup } from 'node:dns'`) see the guarded functions too.
  syncBuiltinESMExports();
  return () => {
    for (const restore of saved.reverse()) restore();
    syncBuiltinESMExports();
  };
}

if (process.env.FUZZ_LOOPBACK_ONLY === '1') guardLoopbackOnly();
