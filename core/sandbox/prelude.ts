// The script-facing API, written in JavaScript and evaluated inside each fresh QuickJS context
// before the user's script. It receives one object of native functions `N` (see engine.ts) and
// keeps it in its closure; nothing native is left on the global object.
//
// QuickJS compiles every run's prelude anew (bytecode cannot be carried between runtimes with this
// build), so the part compiled per run is kept small: console/echo, get/set and variables. Everything
// else is a global whose first read compiles the part that implements it (PRELUDE_PARTS), and
// `request` is parsed from its JSON on first read.

export const PRELUDE_SOURCE = String.raw`(function (N) {
  'use strict';
  var G = globalThis;
  var hasOwn = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };
  var variables = JSON.parse(N.vars());

  function fmt(v) {
    if (typeof v === 'string') return v;
    if (v === undefined) return 'undefined';
    if (typeof v === 'function') return '[Function: ' + (v.name || 'anonymous') + ']';
    if (typeof v === 'symbol' || typeof v === 'bigint') return String(v);
    if (v instanceof Error) return v.name + ': ' + v.message;
    try {
      var s = JSON.stringify(v);
      return s === undefined ? String(v) : s;
    } catch (e) {
      return String(v);
    }
  }
  function log() {
    N.out(Array.prototype.map.call(arguments, fmt).join(' '));
  }
  function toVar(v) {
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'object') {
      try { var s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { return String(v); }
    }
    return String(v);
  }
  function set(name, value) {
    name = String(name);
    var s = toVar(value);
    N.setVar(name, s);
    variables[name] = s;
    return s;
  }
  function get(name) {
    return N.getVar(String(name));
  }

  // ---- parts compiled on first use ----
  var parts = {};
  var indirectEval = eval;
  var S = { hasOwn: hasOwn, toVar: toVar, part: part };
  function part(name) {
    if (!hasOwn(parts, name)) parts[name] = indirectEval(N.part(name))(N, S);
    return parts[name];
  }
  function define(name, value) {
    Object.defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false });
  }
  function lazy(names, from) {
    names.split(' ').forEach(function (name) {
      Object.defineProperty(G, name, {
        get: function () { var v = from(name); define(name, v); return v; },
        set: function (v) { define(name, v); },
        configurable: true,
        enumerable: false,
      });
    });
  }
  function partOf(p) { return function (name) { return part(p)[name]; }; }

  define('console', { log: log, info: log, warn: log, error: log, debug: log, trace: log });
  define('echo', log);
  define('set', set);
  define('get', get);
  define('variables', variables);
  lazy('request', function () { return JSON.parse(N.request()); });
  lazy('stop dont_save respond set_response', partOf('flow'));
  lazy('global store db', partOf('host'));
  lazy('setTimeout clearTimeout', partOf('timers'));
  lazy('require', partOf('require'));
  lazy('fetch axios', partOf('net'));
  lazy('btoa atob', partOf('crypto'));
  lazy('FormData', partOf('formdata'));
})`;

/** Helpers compiled only when a script first uses them (see `part` in the prelude). */
export const PRELUDE_PARTS: Readonly<Record<string, string>> = {
  flow: String.raw`(function (N, S) {
  'use strict';
  var toVar = S.toVar;
  var STOP = Object.freeze({ __sandboxStop: true });
  function headersOf(h) {
    if (h === undefined || h === null) return undefined;
    if (Array.isArray(h)) return h.map(function (x) { return String(x); });
    if (typeof h === 'string') return h.split(/\r?\n/).filter(function (x) { return x.trim() !== ''; });
    if (typeof h === 'object') {
      var o = {};
      Object.keys(h).forEach(function (k) { o[k] = Array.isArray(h[k]) ? h[k].map(String).join(', ') : String(h[k]); });
      return o;
    }
    return undefined;
  }
  function set_response(content, status, headers) {
    var r = {};
    if (content !== undefined && content !== null) r.content = toVar(content);
    if (status !== undefined && status !== null && status !== '') {
      var n = Number(status);
      if (!Number.isInteger(n) || n < 100 || n > 599) throw new RangeError('Invalid status code: ' + status);
      r.status = n;
    }
    var h = headersOf(headers);
    if (h !== undefined) r.headers = h;
    N.setResponse(JSON.stringify(r));
  }
  function stop() { N.flag('stop'); throw STOP; }
  function respond(content, status, headers) { set_response(content, status, headers); stop(); }
  function dont_save() { N.flag('dontSave'); }
  return { stop: stop, dont_save: dont_save, respond: respond, set_response: set_response };
})`,
  host: String.raw`(function (N, S) {
  'use strict';
  var toVar = S.toVar;
  var info = JSON.parse(N.info());
  // ---- the promise bridge ----
  function hostCall(method, args) {
    return N.host(method, JSON.stringify(args)).then(function (s) { return JSON.parse(s); });
  }
  function global_(name, value) {
    if (arguments.length > 1) {
      var s = toVar(value);
      return hostCall('globalSet', [String(name), s]).then(function () { return s; });
    }
    return hostCall('globalGet', [String(name)]);
  }
  function store(name, value) {
    if (arguments.length < 2) return hostCall('globalGet', [String(name)]);
    var s = toVar(value);
    return hostCall('globalSet', [String(name), s]).then(function () { return s; });
  }
  store.get = function (name) {
    if (!info.hasStore) return Promise.reject(new Error('store.get() is not configured on this server'));
    return hostCall('storeGet', [String(name)]);
  };
  store.set = function (name, value) {
    if (!info.hasStore) return Promise.reject(new Error('store.set() is not configured on this server'));
    var s = toVar(value);
    return hostCall('storeSet', [String(name), s]).then(function () { return s; });
  };
  function db(id) {
    if (!info.hasDb) return Promise.reject(new Error('db() is not configured on this server'));
    var database = String(id);
    return Promise.resolve(function query(sql, params) {
      return hostCall('db', [{ database: database, query: String(sql), params: params === undefined ? null : params }]);
    });
  }
  return { hostCall: hostCall, global: global_, store: store, db: db };
})`,
  timers: String.raw`(function (N, S) {
  'use strict';
  // ---- timers (bounded by the run's deadline) ----
  var timers = {};
  var nextTimer = 1;
  function setTimeout(fn, ms) {
    var extra = Array.prototype.slice.call(arguments, 2);
    var id = nextTimer++;
    timers[id] = true;
    N.timer(Math.max(0, Number(ms) || 0)).then(function () {
      if (!timers[id]) return;
      delete timers[id];
      if (typeof fn === 'function') fn.apply(undefined, extra);
    });
    return id;
  }
  function clearTimeout(id) { delete timers[id]; }
  return { setTimeout: setTimeout, clearTimeout: clearTimeout };
})`,
  require: String.raw`(function (N, S) {
  'use strict';
  var G = globalThis;
  var hasOwn = S.hasOwn;
  var indirectEval = eval;

  function evaluate(src, require, module) {
    module = module || { exports: {} };
    var fn = indirectEval('(function (module, exports, require, define, global, self) {' + src + '\n})');
    fn.call(module.exports, module, module.exports, require, undefined, G, G);
    return module.exports;
  }

  function faker() {
    var f = require('@faker-js/faker').faker;
    // require('faker') as the old package: the instance itself, also as .faker, with name.findName()
    if (!hasOwn(f, 'faker')) f.faker = f;
    if (f.person && !f.name) {
      f.name = Object.create(f.person);
      f.name.findName = function () { return f.person.fullName(); };
    }
    return f;
  }

  var builtins = {
    axios: function () { return S.part('net').axios; },
    fetch: function () { return S.part('net').fetch; },
    'node-fetch': function () { return S.part('net').fetch; },
    crypto: function () { return S.part('crypto').crypto; },
    'node:crypto': function () { return S.part('crypto').crypto; },
    'form-data': function () { return S.part('formdata'); },
    lodash: function () { return S.part('lodash')(evaluate, require); },
    faker: faker,
  };
  var cache = {};
  function require(name) {
    name = String(name);
    if (hasOwn(cache, name)) return cache[name];
    if (hasOwn(builtins, name)) return (cache[name] = builtins[name]());
    var m = /^lodash\/([A-Za-z0-9_]+)(?:\.js)?$/.exec(name);
    if (m && N.lodash(m[1], '?') !== '') {
      var fn = require('lodash')[m[1]];
      if (typeof fn === 'function') return (cache[name] = fn);
    }
    var src = N.moduleSource(name);
    var module = { exports: {} };
    cache[name] = module.exports; // what a circular require sees while the module runs
    try {
      evaluate(src, require, module);
    } catch (e) {
      delete cache[name];
      throw e;
    }
    return (cache[name] = module.exports);
  }
  return { require: require };
})`,
  lodash: String.raw`(function (N, S) {
  'use strict';
  var G = globalThis;
  var hasOwn = S.hasOwn;
  var indirectEval = eval;
  // ---- lodash: a front that loads one method (and what it needs) at a time ----
  return function lodashFront(evaluate, require) {
    var whole = null;
    var factories = {};
    var modules = {};
    var methods = {};
    function loadWhole() {
      if (!whole) whole = evaluate(N.lodash('', ''), require);
      return whole;
    }
    function addBatch(src) {
      var batch = indirectEval(src);
      Object.keys(batch).forEach(function (k) { if (!hasOwn(factories, k)) factories[k] = batch[k]; });
    }
    function moduleRequire(name) {
      name = String(name).replace(/^\.\//, '').replace(/\.js$/, '');
      if (hasOwn(modules, name)) return modules[name].exports;
      if (!hasOwn(factories, name)) {
        var more = N.lodash(':' + name, Object.keys(factories).join(','));
        if (more !== '') addBatch(more);
      }
      if (!hasOwn(factories, name)) throw new Error("Cannot find module 'lodash/" + name + "'");
      var m = (modules[name] = { exports: {} });
      try {
        factories[name].call(m.exports, m, m.exports, moduleRequire, G, G);
      } catch (e) {
        delete modules[name];
        throw e;
      }
      return m.exports;
    }
    function method(target, name) {
      if (hasOwn(methods, name)) return methods[name];
      var src = N.lodash(name, Object.keys(factories).join(','));
      if (src === '*') return loadWhole()[name];
      if (src === '') return (methods[name] = target[name]);
      addBatch(src);
      return (methods[name] = moduleRequire(name));
    }
    var lodash = function lodash(value) {};
    var front = new Proxy(lodash, {
      get: function (target, key) {
        if (whole) return whole[key];
        if (key === 'name' || key === 'length') return target[key];
        if (typeof key !== 'string') return loadWhole()[key];
        return method(target, key);
      },
      set: function (target, key, value) { return Reflect.set(loadWhole(), key, value); },
      has: function (target, key) { return key in loadWhole(); },
      deleteProperty: function (target, key) { return Reflect.deleteProperty(loadWhole(), key); },
      defineProperty: function (target, key, desc) { return Reflect.defineProperty(loadWhole(), key, desc); },
      ownKeys: function () { return Reflect.ownKeys(loadWhole()); },
      getOwnPropertyDescriptor: function (target, key) { return Reflect.getOwnPropertyDescriptor(loadWhole(), key); },
      apply: function (target, self, args) { return Reflect.apply(loadWhole(), self, args); },
      construct: function (target, args) { return Reflect.construct(loadWhole(), args); },
    });
    return front;
  };
})`,
  formdata: String.raw`(function (N, S) {
  'use strict';
  var toVar = S.toVar;
  // ---- form-data (the npm package's API) and a WHATWG-like FormData: a multipart body as text ----
  var TYPES = {
    txt: 'text/plain', csv: 'text/csv', html: 'text/html', htm: 'text/html', xml: 'application/xml', json: 'application/json',
    js: 'application/javascript', pdf: 'application/pdf', zip: 'application/zip', png: 'image/png', jpg: 'image/jpeg',
    jpeg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml', webp: 'image/webp',
  };
  function typeOf(filename) {
    var m = /\.([A-Za-z0-9]+)$/.exec(filename);
    var t = m ? TYPES[m[1].toLowerCase()] : undefined;
    return t || 'application/octet-stream';
  }
  function quote(s) { return String(s).replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A'); }
  function utf8Length(s) {
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
      else n += 3;
    }
    return n;
  }
  function FormData() {
    if (!(this instanceof FormData)) return new FormData();
    Object.defineProperty(this, '_entries', { value: [], writable: true });
    Object.defineProperty(this, '_boundary', { value: null, writable: true });
  }
  FormData.prototype.append = function (name, value, options) {
    if (Array.isArray(value)) throw new Error('Arrays are not supported.');
    if (typeof options === 'string') options = { filename: options };
    options = options || {};
    var filename = options.filename !== undefined ? String(options.filename) : options.filepath !== undefined ? String(options.filepath) : undefined;
    if (filename !== undefined) filename = filename.split(/[\\/]/).pop();
    var contentType = options.contentType !== undefined ? String(options.contentType) : filename !== undefined ? typeOf(filename) : undefined;
    this._entries.push({ name: String(name), value: typeof value === 'string' ? value : toVar(value), filename: filename, contentType: contentType });
  };
  FormData.prototype.set = function (name, value, options) {
    this.delete(name);
    this.append(name, value, options);
  };
  FormData.prototype.delete = function (name) {
    name = String(name);
    this._entries = this._entries.filter(function (e) { return e.name !== name; });
  };
  FormData.prototype.get = function (name) {
    name = String(name);
    for (var i = 0; i < this._entries.length; i++) if (this._entries[i].name === name) return this._entries[i].value;
    return null;
  };
  FormData.prototype.getAll = function (name) {
    name = String(name);
    return this._entries.filter(function (e) { return e.name === name; }).map(function (e) { return e.value; });
  };
  FormData.prototype.has = function (name) { return this.get(name) !== null; };
  FormData.prototype.entries = function () { return this._entries.map(function (e) { return [e.name, e.value]; })[Symbol.iterator](); };
  FormData.prototype.keys = function () { return this._entries.map(function (e) { return e.name; })[Symbol.iterator](); };
  FormData.prototype.values = function () { return this._entries.map(function (e) { return e.value; })[Symbol.iterator](); };
  FormData.prototype.forEach = function (cb, self) {
    var fd = this;
    this._entries.slice().forEach(function (e) { cb.call(self, e.value, e.name, fd); });
  };
  FormData.prototype[Symbol.iterator] = FormData.prototype.entries;
  FormData.prototype.getBoundary = function () {
    if (this._boundary === null) {
      var b = '--------------------------';
      for (var i = 0; i < 24; i++) b += Math.floor(Math.random() * 10);
      this._boundary = b;
    }
    return this._boundary;
  };
  FormData.prototype.setBoundary = function (b) {
    if (typeof b !== 'string') throw new TypeError('FormData boundary must be a string');
    this._boundary = b;
  };
  FormData.prototype.getHeaders = function (more) {
    var h = {};
    if (more) Object.keys(more).forEach(function (k) { h[k.toLowerCase()] = more[k]; });
    h['content-type'] = 'multipart/form-data; boundary=' + this.getBoundary();
    return h;
  };
  /** The multipart body (a string here: the sandbox has no Buffer). */
  FormData.prototype.getBuffer = function () {
    var b = this.getBoundary();
    var out = '';
    this._entries.forEach(function (e) {
      out += '--' + b + '\r\nContent-Disposition: form-data; name="' + quote(e.name) + '"';
      if (e.filename !== undefined) out += '; filename="' + quote(e.filename) + '"';
      out += '\r\n';
      if (e.contentType !== undefined) out += 'Content-Type: ' + e.contentType + '\r\n';
      out += '\r\n' + e.value + '\r\n';
    });
    return out + '--' + b + '--\r\n';
  };
  FormData.prototype.toString = function () { return '[object FormData]'; };
  FormData.prototype.getLengthSync = function () { return utf8Length(this.getBuffer()); };
  FormData.prototype.getLength = function (cb) {
    var n = this.getLengthSync();
    if (typeof cb === 'function') Promise.resolve().then(function () { cb(null, n); });
  };
  FormData.prototype.hasKnownLength = function () { return true; };
  FormData.prototype.submit = function (params, cb) {
    var url = typeof params === 'string' ? params
      : params.url ? String(params.url)
      : (params.protocol || 'http:') + '//' + (params.host || params.hostname || 'localhost') + (params.port ? ':' + params.port : '') + (params.path || '/');
    var headers = Object.assign(this.getHeaders(), typeof params === 'object' && params.headers ? params.headers : {});
    var method = typeof params === 'object' && params.method ? params.method : 'POST';
    return S.part('net').fetch(url, { method: method, headers: headers, body: this }).then(
      function (res) { if (typeof cb === 'function') cb(null, res); return res; },
      function (err) { if (typeof cb === 'function') cb(err); else throw err; }
    );
  };
  FormData.FormData = FormData;
  FormData.default = FormData;
  return FormData;
})`,
  net: String.raw`(function (N, S) {
  'use strict';
  var hostCall = S.part('host').hostCall;
  var hasOwn = S.hasOwn;
  // ---- fetch and axios over the host fetch ----
  function lowerHeaders(h) {
    var o = {};
    if (h) Object.keys(h).forEach(function (k) { o[k.toLowerCase()] = String(h[k]); });
    return o;
  }
  function plainHeaders(h) {
    var o = {};
    if (!h) return o;
    if (typeof h.forEach === 'function' && !Array.isArray(h) && typeof h.get === 'function') {
      h.forEach(function (v, k) { o[k] = String(v); });
    } else if (Array.isArray(h)) {
      h.forEach(function (p) {
        if (Array.isArray(p)) o[String(p[0])] = String(p[1]);
        else if (typeof p === 'string' && p.indexOf(':') > 0) o[p.slice(0, p.indexOf(':')).trim()] = p.slice(p.indexOf(':') + 1).trim();
      });
    } else if (typeof h === 'object') {
      Object.keys(h).forEach(function (k) { if (h[k] !== undefined && h[k] !== null) o[k] = String(h[k]); });
    }
    return o;
  }
  function hasHeader(h, name) {
    name = name.toLowerCase();
    return Object.keys(h).some(function (k) { return k.toLowerCase() === name; });
  }
  function bodyOf(body, headers) {
    if (body === undefined || body === null) return null;
    if (typeof body === 'string') return body;
    if (typeof body === 'object' && typeof body.getBoundary === 'function' && typeof body.getBuffer === 'function') {
      // form-data (or the global FormData): a multipart body as text
      if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'multipart/form-data; boundary=' + body.getBoundary();
      return String(body.getBuffer());
    }
    if (typeof body === 'object') {
      if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json';
      return JSON.stringify(body);
    }
    return String(body);
  }
  function makeHeaders(h) {
    var map = lowerHeaders(h);
    return {
      get: function (n) { var v = map[String(n).toLowerCase()]; return v === undefined ? null : v; },
      has: function (n) { return hasOwn(map, String(n).toLowerCase()); },
      forEach: function (cb) { Object.keys(map).forEach(function (k) { cb(map[k], k); }); },
      keys: function () { return Object.keys(map)[Symbol.iterator](); },
      entries: function () { return Object.keys(map).map(function (k) { return [k, map[k]]; })[Symbol.iterator](); },
      toJSON: function () { return map; },
    };
  }
  function fetch_(input, options) {
    options = options || {};
    var url = typeof input === 'string' ? input : input && input.url ? String(input.url) : String(input);
    var headers = plainHeaders(options.headers);
    var req = {
      url: url,
      method: String(options.method || 'GET').toUpperCase(),
      headers: headers,
      body: bodyOf(options.body, headers),
    };
    return hostCall('fetch', [req]).then(function (r) {
      var body = String(r.body);
      var res = {
        ok: r.status >= 200 && r.status < 300,
        status: r.status,
        statusText: r.statusText || '',
        url: r.url || url,
        redirected: false,
        headers: makeHeaders(r.headers),
        text: function () { return Promise.resolve(body); },
        json: function () { return Promise.resolve().then(function () { return JSON.parse(body); }); },
        clone: function () { return res; },
      };
      return res;
    });
  }
  function encodeParams(params) {
    return Object.keys(params).filter(function (k) { return params[k] !== undefined && params[k] !== null; }).map(function (k) {
      return encodeURIComponent(k) + '=' + encodeURIComponent(typeof params[k] === 'object' ? JSON.stringify(params[k]) : String(params[k]));
    }).join('&');
  }
  function makeAxios(defaults) {
    function request(config) {
      config = Object.assign({}, defaults, config);
      config.headers = Object.assign({}, plainHeaders(defaults.headers), plainHeaders(config.headers));
      var url = String(config.url || '');
      if (config.baseURL && !/^[a-z][a-z0-9+.-]*:/i.test(url)) url = String(config.baseURL).replace(/\/+$/, '') + '/' + url.replace(/^\/+/, '');
      if (config.params) { var q = encodeParams(config.params); if (q) url += (url.indexOf('?') >= 0 ? '&' : '?') + q; }
      var headers = config.headers;
      if (config.auth) headers.Authorization = 'Basic ' + N.crypto(JSON.stringify({ op: 'btoa', data: String(config.auth.username || '') + ':' + String(config.auth.password || '') }));
      var req = { url: url, method: String(config.method || 'get').toUpperCase(), headers: headers, body: bodyOf(config.data, headers) };
      return hostCall('fetch', [req]).then(function (r) {
        var data = String(r.body);
        if (config.responseType !== 'text') { try { data = JSON.parse(data); } catch (e) { /* keep text */ } }
        var res = { data: data, status: r.status, statusText: r.statusText || '', headers: lowerHeaders(r.headers), config: config, request: {} };
        var validate = config.validateStatus === undefined ? function (s) { return s >= 200 && s < 300; } : config.validateStatus;
        if (!validate || validate(r.status)) return res;
        var err = new Error('Request failed with status code ' + r.status);
        err.name = 'AxiosError';
        err.isAxiosError = true;
        err.response = res;
        err.status = r.status;
        err.config = config;
        throw err;
      });
    }
    var axios = function (a, b) { return typeof a === 'string' ? request(Object.assign({}, b, { url: a })) : request(a); };
    axios.request = request;
    ['get', 'delete', 'head', 'options'].forEach(function (m) {
      axios[m] = function (url, config) { return request(Object.assign({}, config, { url: url, method: m })); };
    });
    ['post', 'put', 'patch'].forEach(function (m) {
      axios[m] = function (url, data, config) { return request(Object.assign({}, config, { url: url, method: m, data: data })); };
    });
    axios.create = function (more) { return makeAxios(Object.assign({}, defaults, more)); };
    axios.isAxiosError = function (e) { return !!(e && e.isAxiosError); };
    axios.defaults = defaults;
    axios.default = axios;
    return axios;
  }

  return { fetch: fetch_, axios: makeAxios({}) };
})`,

  crypto: String.raw`(function (N, S) {
  'use strict';
  var toVar = S.toVar;
  // ---- crypto (hashing runs natively in the worker, outside the script's reach) ----
  function digester(op, alg, key) {
    var chunks = [];
    var h = {
      update: function (data, enc) { chunks.push([typeof data === 'string' ? data : toVar(data), enc || 'utf8']); return h; },
      digest: function (enc) { return N.crypto(JSON.stringify({ op: op, alg: String(alg), key: key, chunks: chunks, enc: enc || 'hex' })); },
    };
    return h;
  }
  var crypto = {
    createHash: function (alg) { return digester('hash', alg, null); },
    createHmac: function (alg, key) { return digester('hmac', alg, toVar(key)); },
    randomUUID: function () { return N.crypto(JSON.stringify({ op: 'randomUUID' })); },
    randomBytes: function (n) {
      var hex = N.crypto(JSON.stringify({ op: 'randomBytes', n: Number(n) }));
      return {
        length: hex.length / 2,
        toString: function (enc) { return N.crypto(JSON.stringify({ op: 'convert', data: hex, from: 'hex', enc: enc || 'hex' })); },
      };
    },
    timingSafeEqual: function (a, b) { return String(a) === String(b); },
  };

  // Standard atob/btoa over binary strings; btoa also takes text beyond Latin-1 (as UTF-8) instead of throwing.
  function btoa(s) {
    s = String(s);
    return N.crypto(JSON.stringify({ op: 'btoa', data: s, latin1: !/[^\u0000-\u00ff]/.test(s) }));
  }
  function atob(s) {
    return N.crypto(JSON.stringify({ op: 'atob', data: String(s) }));
  }

  return { crypto: crypto, btoa: btoa, atob: atob };
})`,

};

/** Wraps a user script so that top-level `await` works; line 1 of the script stays line 1. */
export function wrapScript(script: string): string {
  return `(async () => { ${script}\n})()`;
}
