// The DNS capture server (UDP and TCP on DNS_PORT), authoritative for DNS_DOMAIN: a query for
// `<token>.DNS_DOMAIN` or any name under it is stored as a request of type `dns` and answered
// from the token's response (see answers.ts). Unknown tokens get NXDOMAIN and are not stored;
// names outside DNS_DOMAIN are REFUSED.
import type { RemoteInfo } from 'node:dgram';
import net, { type Socket } from 'node:net';
import dns2 from 'dns2';
import { captureLog } from '../capture/capture-log.js';
import { newRequestRecord, type CapturedResponse } from '../capture/pipeline.js';
import type { ModuleContext } from '../service-module.js';
import type { RequestRecord, TokenRecord } from '../store/types.js';
import { listenOn } from '../net/listen.js';
import { isExpired } from '../tokens/expiry.js';
import { parseAnswers, select, txtStrings } from './answers.js';

const { Packet, UDPServer } = dns2;
type DnsPacket = InstanceType<typeof Packet>;
/** A resource record as dns2 encodes it (its typings want class instances; plain objects work). */
type Rr = Record<string, unknown>;
const add = (section: unknown[], rr: Rr) => section.push(rr as never);

/** RFC 1035 §4.1.1 response codes. */
const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]));
const CLASS_NAMES = new Map<number, string>(Object.entries(Packet.CLASS).map(([name, code]) => [code as number, name]));

const TCP_IDLE_MS = 10_000;
const TCP_MAX_IN_FLIGHT = 16;

/**
 * What this server answers: one question, no answer or authority records, a few additionals
 * (EDNS). Checked on the raw header before decoding, because dns2 tries to decode as many records
 * as the header claims: a 30-byte datagram claiming 65535 of each keeps it busy for seconds.
 */
export function wellFormed(data: Buffer): boolean {
  if (data.length < 17 || data.length > 65535) return false;
  if (data[2]! & 0x80) return false; // a response, not a query
  const qd = data.readUInt16BE(4);
  const an = data.readUInt16BE(6);
  const ns = data.readUInt16BE(8);
  const ar = data.readUInt16BE(10);
  return qd === 1 && an === 0 && ns === 0 && ar <= 2;
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};

/** FORMERR for a packet that could not be read: its id, QR set, no records. */
function formErr(data: Buffer): Buffer {
  const out = Buffer.alloc(12);
  data.copy(out, 0, 0, 2);
  out[2] = 0x80 | (data[2]! & 0x78); // QR, the request's opcode
  out[3] = RCODE.FORMERR;
  return out;
}

/** Length-prefixed DNS messages from a TCP stream (RFC 1035 §4.2.2), pipelined. */
function readFrames(socket: Socket, onMessage: (data: Buffer) => void, onEnd: () => void): void {
  let buffered: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    while (buffered.length >= 2) {
      const len = buffered.readUInt16BE(0);
      if (buffered.length < 2 + len) break;
      const message = buffered.subarray(2, 2 + len);
      buffered = buffered.subarray(2 + len);
      onMessage(message);
      if (socket.destroyed) return;
    }
  });
  socket.on('end', onEnd);
}

export interface DnsCapture {
  port: number;
  close(): Promise<void>;
}

export interface DnsQuery {
  /** As the client sent it (case kept: subdomains may carry base64), without the trailing dot. */
  name: string;
  type: string;
  protocol: 'udp' | 'tcp';
  ip: string;
}

type Send = (response: DnsPacket) => unknown;

function plainIp(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export async function startDnsServer(ctx: ModuleContext): Promise<DnsCapture> {
  const { config, logger, store, clock } = ctx;
  const log = captureLog(config, logger);
  const zone = config.DNS_DOMAIN.toLowerCase().replace(/\.$/, '');
  const ttl = config.DNS_TTL;
  const soa = {
    name: zone,
    type: Packet.TYPE.SOA,
    class: Packet.CLASS.IN,
    ttl,
    primary: `ns.${zone}`,
    admin: `hostmaster.${zone}`,
    serial: 1,
    refresh: 3600,
    retry: 600,
    expiration: 86400,
    minimum: ttl,
  };

  /**
   * The token a label names: as sent first, then ignoring case, because resolvers lower-case names
   * (Node's does) or randomise their case (DNS 0x20), so `MyAlias` may arrive as `myalias`.
   */
  async function tokenFor(label: string): Promise<TokenRecord | null> {
    const token = (await store.tokens.resolve(label)) ?? (await store.tokens.resolveIgnoringCase(label));
    return token && !isExpired(token, clock.now()) ? token : null;
  }

  function record(token: TokenRecord, q: DnsQuery, sub: string): RequestRecord {
    const now = clock.now();
    return newRequestRecord(
      {
        token_id: token.uuid,
        team_id: token.team_id ?? null,
        type: 'dns',
        ip: q.ip,
        hostname: q.name,
        method: 'DNS',
        url: `dns:${q.name}?type=${q.type}`,
        sorting: ctx.sortingKey(),
        extra: { dns: { name: q.name, type: q.type, protocol: q.protocol, subdomain: sub } },
      },
      now,
    );
  }

  /** Fills `response` for one question. */
  async function answer(question: { name: string; type: number; class: number }, q: DnsQuery, response: DnsPacket): Promise<void> {
    const header = response.header as { aa: number; rcode: number };
    const name = q.name.toLowerCase();
    if (name !== zone && !name.endsWith(`.${zone}`)) {
      header.aa = 0;
      header.rcode = RCODE.REFUSED;
      return;
    }
    header.aa = 1;
    if (name === zone) {
      if (q.type === 'SOA' || q.type === 'ANY') add(response.answers, soa);
      else add(response.authorities, soa);
      return;
    }
    const labels = q.name.slice(0, -(zone.length + 1)).split('.');
    const tokenLabel = labels.at(-1)!;
    const token = await tokenFor(tokenLabel);
    if (!token) {
      header.rcode = RCODE.NXDOMAIN;
      add(response.authorities, soa);
      return;
    }
    const started = performance.now();
    const start: CapturedResponse = { status: token.default_status, content: token.default_content, contentType: token.default_content_type, headers: {} };
    const captured = record(token, q, labels.slice(0, -1).join('.'));
    const { response: final } = await ctx.pipeline.process(token, captured, new Map(), start, started);
    log?.({ request: captured.uuid, token: token.uuid, method: 'DNS', ms: performance.now() - started });
    const answers = parseAnswers(Buffer.isBuffer(final.content) ? final.content.toString('utf8') : String(final.content));
    const chosen = answers ? select(answers, q.type) : [];
    for (const a of chosen) {
      const base = { name: question.name, class: Packet.CLASS.IN, ttl };
      if (a.type === 'a') add(response.answers, { ...base, type: Packet.TYPE.A, address: a.value });
      else if (a.type === 'cname') add(response.answers, { ...base, type: Packet.TYPE.CNAME, domain: a.value });
      else for (const line of a.value.split(/\r?\n/)) add(response.answers, { ...base, type: Packet.TYPE.TXT, data: txtStrings(line) });
    }
    if (!response.answers.length) add(response.authorities, soa);
  }

  async function handle(request: DnsPacket, send: Send, protocol: 'udp' | 'tcp', ip: string): Promise<void> {
    const response = Packet.createResponseFromRequest(request);
    const question = request.questions[0] as { name: string; type: number; class: number } | undefined;
    try {
      if (!question || (request.header as { opcode: number }).opcode !== 0) {
        (response.header as { rcode: number }).rcode = question ? RCODE.NOTIMP : RCODE.FORMERR;
      } else {
        const q: DnsQuery = {
          name: String(question.name).replace(/\.$/, ''),
          type: TYPE_NAMES.get(question.type) ?? `TYPE${question.type}`,
          protocol,
          ip,
        };
        if (question.class !== Packet.CLASS.IN && question.class !== Packet.CLASS.ANY) {
          (response.header as { rcode: number }).rcode = RCODE.REFUSED;
          logger.debug('DNS query of class other than IN refused', { class: CLASS_NAMES.get(question.class) ?? question.class });
        } else {
          await answer(question, q, response);
        }
      }
    } catch (err) {
      logger.error('DNS capture failed', { err });
      response.answers = [];
      response.authorities = [];
      (response.header as { rcode: number }).rcode = RCODE.SERVFAIL;
    }
    try {
      await send(response);
    } catch (err) {
      logger.debug('DNS answer could not be sent', { err: (err as Error).message });
    }
  }

  const sockets = new Set<Socket>();
  /** A query this server answers: checked before dns2 decodes it (see wellFormed). */
  function decode(data: Buffer, reply: (buf: Buffer) => void): DnsPacket | null {
    if (!wellFormed(data)) {
      // Answer malformed queries; never answer responses (no ping-pong with another server).
      if (data.length >= 12 && !(data[2]! & 0x80)) reply(formErr(data));
      return null;
    }
    try {
      return Packet.parse(data);
    } catch (err) {
      logger.debug('undecodable DNS packet', { err: (err as Error).message });
      reply(formErr(data));
      return null;
    }
  }

  function servers() {
    const udp = new UDPServer({ type: config.HOST.includes(':') ? 'udp6' : 'udp4' });
    // dns2 decodes every datagram as it comes; ours are checked first (see wellFormed).
    udp.removeAllListeners('message');
    udp.on('message', (data: Buffer, rinfo: RemoteInfo) => {
      const reply = (buf: Buffer) => udp.send(buf, rinfo.port, rinfo.address);
      const request = decode(data, reply);
      if (!request) return;
      // dns2 truncates (TC) beyond the payload size: 512 bytes, or what the query's EDNS offers.
      const opt = (request.additionals ?? []).find((r) => (r as { type?: number }).type === Packet.TYPE.EDNS) as { class?: number } | undefined;
      const maxPayload = Math.min(Math.max(opt?.class ?? 512, 512), 4096);
      const send = (res: DnsPacket) => (udp.response as (ctx: unknown, res: DnsPacket) => Promise<Buffer>)({ rinfo, maxPayload }, res);
      void handle(request, send, 'udp', plainIp(rinfo.address));
    });
    const tcp = net.createServer({ allowHalfOpen: true }, (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
      socket.on('error', () => socket.destroy());
      const reply = (buf: Buffer) => {
        if (!socket.destroyed && socket.writable) socket.write(Buffer.concat([u16(buf.length), buf]));
      };
      let inFlight = 0;
      let ended = false;
      const done = () => {
        inFlight--;
        if (ended && inFlight === 0) socket.end();
      };
      readFrames(
        socket,
        (data) => {
          if (inFlight >= TCP_MAX_IN_FLIGHT) return void socket.destroy();
          const request = decode(data, reply);
          if (!request) return;
          inFlight++;
          void handle(request, (res) => reply(res.toBuffer()), 'tcp', plainIp(socket.remoteAddress)).finally(done);
        },
        () => {
          ended = true;
          if (inFlight === 0) socket.end();
        },
      );
    });
    return { udp, tcp };
  }
  // With DNS_PORT=0 the TCP server takes the port UDP was given, so both answer on one port; when
  // that TCP port is taken, try another pair.
  let udp!: InstanceType<typeof UDPServer>;
  let tcp!: net.Server;
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    ({ udp, tcp } = servers());
    await listenOn('DNS_PORT', 'udp', udp, (done) => udp.bind(config.DNS_PORT, config.HOST, done));
    port = udp.address().port;
    try {
      await listenOn('DNS_PORT', 'tcp', tcp, (done) => tcp.listen(port, config.HOST, done));
      break;
    } catch (err) {
      udp.close();
      if (config.DNS_PORT !== 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw err;
    }
  }
  udp.on('error', (err: Error) => logger.warn('DNS UDP socket error', { err: err.message }));
  tcp.on('error', (err: Error) => logger.warn('DNS TCP server error', { err: err.message }));
  logger.info('DNS server listening', { port, zone });

  return {
    port,
    async close() {
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => {
          tcp.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        }),
      ]);
    },
  };
}
