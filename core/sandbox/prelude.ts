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
  lazy('Buffer', partOf('buffer'));
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
    buffer: function () { return S.part('buffer').module; },
    'node:buffer': function () { return S.part('buffer').module; },
    nats: function () { return S.part('nats'); },
    supabase: function () { return S.part('supabase').createClient; },
    '@supabase/supabase-js': function () { return S.part('supabase'); },
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
    var text = typeof value === 'string' ? value : value instanceof Uint8Array && typeof value.toString === 'function' && value.toString !== Uint8Array.prototype.toString ? value.toString('utf8') : toVar(value);
    this._entries.push({ name: String(name), value: text, filename: filename, contentType: contentType });
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
  /** The multipart body (as text: it crosses to the host as a string). */
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
    // A Buffer (or other byte array) is sent as its text: the body crosses to the host as a string.
    if (body instanceof Uint8Array) return S.part('buffer').Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
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
  buffer: String.raw`(function (N, S) {
  'use strict';
  // ---- Buffer: Node's Buffer for the common methods, a Uint8Array subclass written in JS ----
  var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  var B64_INDEX = {};
  for (var i = 0; i < 64; i++) B64_INDEX[B64[i]] = i;
  B64_INDEX['-'] = 62;
  B64_INDEX._ = 63;
  var ENCODINGS = ['utf8', 'utf-8', 'hex', 'base64', 'base64url', 'latin1', 'binary', 'ascii', 'ucs2', 'ucs-2', 'utf16le', 'utf-16le'];
  function normEnc(enc) {
    if (enc === undefined || enc === null) return 'utf8';
    var e = String(enc).toLowerCase();
    if (ENCODINGS.indexOf(e) < 0) throw new TypeError('Unknown encoding: ' + enc);
    if (e === 'utf-8') return 'utf8';
    if (e === 'binary') return 'latin1';
    if (e === 'ucs2' || e === 'ucs-2' || e === 'utf-16le') return 'utf16le';
    return e;
  }
  function utf8Bytes(s) {
    var out = [];
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
      } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return out;
  }
  // WHATWG UTF-8 decoding (as Node does): one U+FFFD for each maximal invalid subsequence.
  function utf8Text(b, start, end) {
    var s = '';
    var i = start;
    while (i < end) {
      var c = b[i];
      if (c < 0x80) { s += String.fromCharCode(c); i++; continue; }
      var need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
      if (need === 0) { s += '\ufffd'; i++; continue; }
      var lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
      var hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
      var cp = c & (0x3f >> need);
      var k = 1;
      for (; k <= need; k++) {
        var x = i + k < end ? b[i + k] : -1;
        if (x < lo || x > hi) break;
        cp = (cp << 6) | (x & 63);
        lo = 0x80;
        hi = 0xbf;
      }
      if (k <= need) { s += '\ufffd'; i += k; continue; }
      s += String.fromCodePoint(cp);
      i += need + 1;
    }
    return s;
  }
  function base64Bytes(s) {
    var out = [];
    var acc = 0;
    var bits = 0;
    for (var i = 0; i < s.length; i++) {
      var v = B64_INDEX[s[i]];
      if (v === undefined) { if (s[i] === '=') break; continue; }
      acc = (acc << 6) | v;
      bits += 6;
      if (bits >= 8) { bits -= 8; out.push((acc >> bits) & 255); }
    }
    return out;
  }
  function base64Text(b, start, end, url) {
    var s = '';
    for (var i = start; i < end; i += 3) {
      var n = (b[i] << 16) | ((i + 1 < end ? b[i + 1] : 0) << 8) | (i + 2 < end ? b[i + 2] : 0);
      s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < end ? B64[(n >> 6) & 63] : '=') + (i + 2 < end ? B64[n & 63] : '=');
    }
    return url ? s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : s;
  }
  function stringBytes(s, enc) {
    s = String(s);
    switch (normEnc(enc)) {
      case 'utf8': return utf8Bytes(s);
      case 'hex': {
        var out = [];
        for (var i = 0; i + 1 < s.length; i += 2) {
          var v = parseInt(s.substr(i, 2), 16);
          if (isNaN(v)) break;
          out.push(v);
        }
        return out;
      }
      case 'base64':
      case 'base64url': return base64Bytes(s);
      case 'latin1':
      case 'ascii': { var l = []; for (var j = 0; j < s.length; j++) l.push(s.charCodeAt(j) & 255); return l; }
      case 'utf16le': { var u = []; for (var k = 0; k < s.length; k++) { var c = s.charCodeAt(k); u.push(c & 255, c >> 8); } return u; }
    }
  }

  class Buffer extends Uint8Array {
    constructor(value, encodingOrOffset, length) {
      if (typeof value === 'string') super(stringBytes(value, encodingOrOffset));
      else if (typeof value === 'number') super(value);
      else if (value instanceof ArrayBuffer) super(value, encodingOrOffset === undefined ? 0 : encodingOrOffset, length === undefined ? value.byteLength - (encodingOrOffset || 0) : length);
      else if (value && typeof value === 'object' && value.type === 'Buffer' && Array.isArray(value.data)) super(value.data);
      else super(value === undefined ? 0 : value);
    }
    static from(value, encodingOrOffset, length) {
      if (typeof value === 'number') throw new TypeError('The "value" argument must not be of type number');
      if (value === undefined || value === null) throw new TypeError('The first argument must be a string, Buffer, ArrayBuffer, Array, or array-like object');
      return new Buffer(value, encodingOrOffset, length);
    }
    static alloc(size, fill, encoding) {
      var b = new Buffer(checkSize(size));
      if (fill !== undefined && fill !== 0) b.fill(fill, 0, b.length, encoding);
      return b;
    }
    static allocUnsafe(size) { return new Buffer(checkSize(size)); }
    static allocUnsafeSlow(size) { return new Buffer(checkSize(size)); }
    static isBuffer(b) { return b instanceof Buffer; }
    static isEncoding(enc) { return typeof enc === 'string' && ENCODINGS.indexOf(enc.toLowerCase()) >= 0; }
    static byteLength(value, enc) {
      if (typeof value === 'string') return stringBytes(value, enc).length;
      return value.byteLength;
    }
    static concat(list, total) {
      if (!Array.isArray(list)) throw new TypeError('The "list" argument must be an Array of Buffers');
      if (total === undefined) total = list.reduce(function (n, b) { return n + b.length; }, 0);
      var out = Buffer.alloc(total);
      var at = 0;
      for (var i = 0; i < list.length && at < total; i++) {
        var b = list[i];
        var n = Math.min(b.length, total - at);
        for (var k = 0; k < n; k++) out[at + k] = b[k];
        at += n;
      }
      return out;
    }
    static compare(a, b) { return Buffer.prototype.compare.call(a, b); }
    toString(encoding, start, end) {
      start = start === undefined ? 0 : Math.max(0, start | 0);
      end = end === undefined ? this.length : Math.min(this.length, end | 0);
      if (end <= start) return '';
      var s = '';
      var i;
      switch (normEnc(encoding)) {
        case 'utf8': return utf8Text(this, start, end);
        case 'hex': for (i = start; i < end; i++) s += (this[i] < 16 ? '0' : '') + this[i].toString(16); return s;
        case 'base64': return base64Text(this, start, end, false);
        case 'base64url': return base64Text(this, start, end, true);
        case 'latin1': for (i = start; i < end; i++) s += String.fromCharCode(this[i]); return s;
        case 'ascii': for (i = start; i < end; i++) s += String.fromCharCode(this[i] & 127); return s;
        case 'utf16le': for (i = start; i + 1 < end; i += 2) s += String.fromCharCode(this[i] | (this[i + 1] << 8)); return s;
      }
    }
    toJSON() { return { type: 'Buffer', data: Array.prototype.slice.call(this) }; }
    equals(other) { return this.compare(other) === 0; }
    compare(other) {
      var n = Math.min(this.length, other.length);
      for (var i = 0; i < n; i++) if (this[i] !== other[i]) return this[i] < other[i] ? -1 : 1;
      return this.length === other.length ? 0 : this.length < other.length ? -1 : 1;
    }
    slice(start, end) { return this.subarray(start, end); }
    write(string, offset, length, encoding) {
      if (typeof offset === 'string') { encoding = offset; offset = 0; length = undefined; }
      else if (typeof length === 'string') { encoding = length; length = undefined; }
      offset = offset === undefined ? 0 : offset | 0;
      var bytes = stringBytes(string, encoding);
      var n = Math.min(bytes.length, this.length - offset, length === undefined ? Infinity : length);
      for (var i = 0; i < n; i++) this[offset + i] = bytes[i];
      return Math.max(0, n);
    }
    fill(value, offset, end, encoding) {
      if (typeof offset === 'string') { encoding = offset; offset = 0; end = this.length; }
      offset = offset === undefined ? 0 : offset;
      end = end === undefined ? this.length : end;
      if (typeof value === 'string') {
        var bytes = stringBytes(value, encoding);
        if (bytes.length === 0) return Uint8Array.prototype.fill.call(this, 0, offset, end);
        for (var i = offset, k = 0; i < end; i++, k++) this[i] = bytes[k % bytes.length];
        return this;
      }
      return Uint8Array.prototype.fill.call(this, typeof value === 'boolean' ? +value : value, offset, end);
    }
    copy(target, targetStart, sourceStart, sourceEnd) {
      targetStart = targetStart || 0;
      sourceStart = sourceStart || 0;
      sourceEnd = sourceEnd === undefined ? this.length : sourceEnd;
      var n = Math.min(sourceEnd - sourceStart, target.length - targetStart);
      for (var i = 0; i < n; i++) target[targetStart + i] = this[sourceStart + i];
      return Math.max(0, n);
    }
    indexOf(value, byteOffset, encoding) {
      if (typeof value === 'number') return Uint8Array.prototype.indexOf.call(this, value, byteOffset);
      var needle = typeof value === 'string' ? stringBytes(value, encoding) : value;
      var from = byteOffset === undefined ? 0 : byteOffset < 0 ? Math.max(0, this.length + byteOffset) : byteOffset;
      outer: for (var i = from; i + needle.length <= this.length; i++) {
        for (var k = 0; k < needle.length; k++) if (this[i + k] !== needle[k]) continue outer;
        return i;
      }
      return -1;
    }
    includes(value, byteOffset, encoding) { return this.indexOf(value, byteOffset, encoding) !== -1; }
    inspect() { return '<Buffer ' + this.toString('hex').replace(/(..)(?!$)/g, '$1 ') + '>'; }
  }
  function checkSize(size) {
    if (typeof size !== 'number' || !(size >= 0) || size > 0x7fffffff) throw new RangeError('The argument "size" is invalid. Received ' + size);
    return size;
  }
  // readUInt8/16/32 and writeUInt8/16/32 (LE/BE, signed too), and the float/double ones, over DataView.
  function view(b) { return new DataView(b.buffer, b.byteOffset, b.byteLength); }
  [['UInt8', 'Uint8', 1], ['Int8', 'Int8', 1], ['UInt16', 'Uint16', 2], ['Int16', 'Int16', 2], ['UInt32', 'Uint32', 4], ['Int32', 'Int32', 4], ['Float', 'Float32', 4], ['Double', 'Float64', 8]].forEach(function (t) {
    var ends = t[2] === 1 ? [''] : ['LE', 'BE'];
    ends.forEach(function (e) {
      var little = e === 'LE';
      Buffer.prototype['read' + t[0] + e] = function (offset) {
        offset = offset === undefined ? 0 : offset;
        if (offset < 0 || offset + t[2] > this.length) throw new RangeError('The value of "offset" is out of range.');
        return view(this)['get' + t[1]](offset, little);
      };
      Buffer.prototype['write' + t[0] + e] = function (value, offset) {
        offset = offset === undefined ? 0 : offset;
        if (offset < 0 || offset + t[2] > this.length) throw new RangeError('The value of "offset" is out of range.');
        view(this)['set' + t[1]](offset, value, little);
        return offset + t[2];
      };
      if (t[0].indexOf('UInt') === 0) {
        Buffer.prototype['readUint' + t[0].slice(4) + e] = Buffer.prototype['read' + t[0] + e];
        Buffer.prototype['writeUint' + t[0].slice(4) + e] = Buffer.prototype['write' + t[0] + e];
      }
    });
  });
  Buffer.poolSize = 8192;
  return { Buffer: Buffer, module: { Buffer: Buffer, kMaxLength: 0x7fffffff, constants: { MAX_LENGTH: 0x7fffffff } } };
})`,
  supabase: String.raw`(function (N, S) {
  'use strict';
  var fetch_ = S.part('net').fetch;
  // ---- @supabase/supabase-js's database client: PostgREST requests over the host fetch ----
  function pgValue(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return '{' + v.map(function (x) { return typeof x === 'string' && /[,{}"\s]/.test(x) ? JSON.stringify(x) : String(x); }).join(',') + '}';
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  }
  function listValue(values) {
    return '(' + values.map(function (x) { x = x === null ? 'null' : String(x); return /[,()"]/.test(x) ? JSON.stringify(x) : x; }).join(',') + ')';
  }
  function Builder(client, table, method) {
    this._client = client;
    this._table = table;
    this._method = method;
    this._query = [];
    this._headers = {};
    this._body = undefined;
    this._prefer = [];
    this._single = null;
  }
  var B = Builder.prototype;
  B._param = function (name, value) { this._query.push([name, value]); return this; };
  B.select = function (columns, options) {
    var cols = columns === undefined ? '*' : String(columns).replace(/\s+(?=(?:[^"]*"[^"]*")*[^"]*$)/g, '');
    this._param('select', cols);
    if (this._method !== 'GET' && this._method !== 'HEAD') this._prefer.push('return=representation');
    options = options || {};
    if (options.count) this._prefer.push('count=' + options.count);
    if (options.head) this._method = 'HEAD';
    return this;
  };
  ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'is'].forEach(function (op) {
    B[op] = function (column, value) { return this._param(String(column), op + '.' + pgValue(value)); };
  });
  B.in = function (column, values) { return this._param(String(column), 'in.' + listValue(values)); };
  B.contains = function (column, value) { return this._param(String(column), 'cs.' + pgValue(value)); };
  B.containedBy = function (column, value) { return this._param(String(column), 'cd.' + pgValue(value)); };
  B.overlaps = function (column, value) { return this._param(String(column), 'ov.' + pgValue(value)); };
  B.textSearch = function (column, query, options) {
    options = options || {};
    var t = options.type === 'plain' ? 'pl' : options.type === 'phrase' ? 'ph' : options.type === 'websearch' ? 'w' : '';
    return this._param(String(column), t + 'fts' + (options.config ? '(' + options.config + ')' : '') + '.' + query);
  };
  B.match = function (query) {
    var self = this;
    Object.keys(query).forEach(function (k) { self.eq(k, query[k]); });
    return this;
  };
  B.not = function (column, operator, value) { return this._param(String(column), 'not.' + operator + '.' + (operator === 'in' && Array.isArray(value) ? listValue(value) : pgValue(value))); };
  B.or = function (filters, options) { return this._param(options && options.referencedTable ? options.referencedTable + '.or' : 'or', '(' + filters + ')'); };
  B.filter = function (column, operator, value) { return this._param(String(column), operator + '.' + value); };
  B.order = function (column, options) {
    options = options || {};
    var key = options.referencedTable || options.foreignTable ? (options.referencedTable || options.foreignTable) + '.order' : 'order';
    var term = column + '.' + (options.ascending === false ? 'desc' : 'asc') + (options.nullsFirst === undefined ? '' : options.nullsFirst ? '.nullsfirst' : '.nullslast');
    var existing = this._query.filter(function (p) { return p[0] === key; })[0];
    if (existing) existing[1] += ',' + term;
    else this._param(key, term);
    return this;
  };
  B.limit = function (count) { return this._param('limit', String(count)); };
  B.range = function (from, to) { this._param('offset', String(from)); return this._param('limit', String(to - from + 1)); };
  B.single = function () { this._single = 'single'; this._headers.Accept = 'application/vnd.pgrst.object+json'; return this; };
  B.maybeSingle = function () { this._single = 'maybe'; return this; };
  B.abortSignal = function () { return this; };
  B.url = function () {
    var q = this._query.map(function (p) { return encodeURIComponent(p[0]) + '=' + encodeURIComponent(p[1]); }).join('&');
    return this._client.rest + '/' + encodeURIComponent(this._table) + (q ? '?' + q : '');
  };
  B.then = function (onFulfilled, onRejected) { return this._run().then(onFulfilled, onRejected); };
  B.catch = function (onRejected) { return this._run().catch(onRejected); };
  B.finally = function (f) { return this._run().finally(f); };
  B._run = function () {
    if (this._promise) return this._promise;
    var headers = Object.assign({}, this._client.headers, this._headers);
    if (this._prefer.length) headers.Prefer = this._prefer.join(',');
    var schema = this._client.schema;
    if (schema) headers[this._method === 'GET' || this._method === 'HEAD' ? 'Accept-Profile' : 'Content-Profile'] = schema;
    var init = { method: this._method, headers: headers };
    if (this._body !== undefined) { init.body = JSON.stringify(this._body); headers['Content-Type'] = 'application/json'; }
    var single = this._single;
    return (this._promise = fetch_(this.url(), init).then(function (res) {
      return res.text().then(function (text) {
        var body = null;
        if (text !== '') { try { body = JSON.parse(text); } catch (e) { body = text; } }
        var count = null;
        var range = res.headers.get('content-range');
        if (range && /\/\d+$/.test(range)) count = Number(range.split('/')[1]);
        if (!res.ok) {
          var error = body && typeof body === 'object' ? body : { message: String(body || res.statusText || 'HTTP ' + res.status) };
          if (single === 'maybe' && error.code === 'PGRST116') return { data: null, error: null, count: count, status: 200, statusText: 'OK' };
          return { data: null, error: error, count: count, status: res.status, statusText: res.statusText };
        }
        var data = body;
        if (single && Array.isArray(data)) {
          if (data.length === 1) data = data[0];
          else if (data.length === 0 && single === 'maybe') data = null;
          else return { data: null, error: { code: 'PGRST116', details: 'The result contains ' + data.length + ' rows', hint: null, message: 'JSON object requested, multiple (or no) rows returned' }, count: count, status: 406, statusText: 'Not Acceptable' };
        }
        return { data: data, error: null, count: count, status: res.status, statusText: res.statusText };
      });
    }, function (err) {
      return { data: null, error: { message: String(err && err.message || err), details: '', hint: '', code: '' }, count: null, status: 0, statusText: '' };
    }));
  };
  function QueryBuilder(client, table) { this._client = client; this._table = table; }
  QueryBuilder.prototype.select = function (columns, options) {
    return new Builder(this._client, this._table, options && options.head ? 'HEAD' : 'GET').select(columns, options);
  };
  function mutation(qb, method, values, options) {
    var b = new Builder(qb._client, qb._table, method);
    options = options || {};
    if (values !== undefined) b._body = values;
    if (options.count) b._prefer.push('count=' + options.count);
    return b;
  }
  QueryBuilder.prototype.insert = function (values, options) {
    var b = mutation(this, 'POST', values, options);
    if (Array.isArray(values)) {
      var cols = {};
      values.forEach(function (v) { Object.keys(v || {}).forEach(function (k) { cols[k] = true; }); });
      if (Object.keys(cols).length) b._param('columns', Object.keys(cols).map(function (k) { return '"' + k + '"'; }).join(','));
    }
    if (options && options.defaultToNull === false) b._prefer.push('missing=default');
    return b;
  };
  QueryBuilder.prototype.upsert = function (values, options) {
    options = options || {};
    var b = mutation(this, 'POST', values, options);
    b._prefer.push('resolution=' + (options.ignoreDuplicates ? 'ignore' : 'merge') + '-duplicates');
    if (options.onConflict) b._param('on_conflict', String(options.onConflict));
    return b;
  };
  QueryBuilder.prototype.update = function (values, options) { return mutation(this, 'PATCH', values, options); };
  QueryBuilder.prototype.delete = function (options) { return mutation(this, 'DELETE', undefined, options); };

  function createClient(url, key, options) {
    if (!url) throw new Error('supabaseUrl is required.');
    if (!key) throw new Error('supabaseKey is required.');
    options = options || {};
    var base = String(url).replace(/\/+$/, '');
    var global = options.global || {};
    var client = {
      rest: base + '/rest/v1',
      schema: options.db && options.db.schema ? String(options.db.schema) : null,
      headers: Object.assign({ apikey: String(key), Authorization: 'Bearer ' + key, 'X-Client-Info': 'supabase-js-sandbox' }, global.headers || {}),
    };
    var api = {
      supabaseUrl: base,
      supabaseKey: String(key),
      from: function (table) { return new QueryBuilder(client, String(table)); },
      schema: function (name) { return createClient(url, key, Object.assign({}, options, { db: { schema: name } })); },
      rpc: function (fn, args, opts) {
        opts = opts || {};
        var b = new Builder(client, 'rpc/' + String(fn), opts.head ? 'HEAD' : opts.get ? 'GET' : 'POST');
        if (b._method === 'POST') b._body = args || {};
        else Object.keys(args || {}).forEach(function (k) { b._param(k, String(args[k])); });
        if (opts.count) b._prefer.push('count=' + opts.count);
        b.url = function () {
          var q = this._query.map(function (p) { return encodeURIComponent(p[0]) + '=' + encodeURIComponent(p[1]); }).join('&');
          return client.rest + '/rpc/' + encodeURIComponent(String(fn)) + (q ? '?' + q : '');
        };
        return b;
      },
    };
    return api;
  }
  // require('supabase') is createClient itself (webhook.site's docs); '@supabase/supabase-js' is the package's shape.
  createClient.createClient = createClient;
  return { createClient: createClient };
})`,
  nats: String.raw`(function (N, S) {
  'use strict';
  var hostCall = S.part('host').hostCall;
  var Buffer = S.part('buffer').Buffer;
  // ---- nats (the npm package's API): connections and subscriptions live on the host for the run ----
  function bytes(data) {
    if (data === undefined || data === null) return Buffer.alloc(0);
    if (data instanceof Uint8Array) return data;
    if (data instanceof ArrayBuffer) return new Uint8Array(data);
    return Buffer.from(typeof data === 'string' ? data : JSON.stringify(data));
  }
  function b64(data) { var b = bytes(data); return (b instanceof Buffer ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('base64'); }
  function call(op, fields) { return hostCall('nats', [Object.assign({ op: op }, fields)]); }
  function headersOf(h) {
    if (h === undefined || h === null) return undefined;
    var o = {};
    if (typeof h.keys === 'function' && typeof h.values === 'function') {
      h.keys().forEach(function (k) { o[k] = h.values(k); });
      return o;
    }
    Object.keys(h).forEach(function (k) { o[k] = Array.isArray(h[k]) ? h[k].map(String) : [String(h[k])]; });
    return o;
  }
  function MsgHdrs(init) {
    var map = {};
    this.append = function (k, v) { (map[k] = map[k] || []).push(String(v)); };
    this.set = function (k, v) { map[k] = [String(v)]; };
    this.get = function (k) { return map[k] ? map[k][0] : ''; };
    this.values = function (k) { return map[k] ? map[k].slice() : []; };
    this.has = function (k) { return !!map[k]; };
    this.delete = function (k) { delete map[k]; };
    this.keys = function () { return Object.keys(map); };
    if (init) Object.keys(init).forEach(function (k) { map[k] = init[k].slice(); });
  }
  function headers() { return new MsgHdrs(); }

  function Connection(id, server) {
    var conn = this;
    var closed = false;
    var sent = Promise.resolve();
    var failure = null;
    var onClosed;
    var closedPromise = new Promise(function (resolve) { onClosed = resolve; });
    function live() { if (closed) { var e = new Error('CONNECTION_CLOSED'); e.code = 'CONNECTION_CLOSED'; throw e; } }
    function message(m) {
      if (!m) return m;
      var data = Buffer.from(m.data, 'base64');
      return {
        subject: m.subject,
        reply: m.reply || '',
        sid: m.sid,
        data: data,
        headers: m.headers ? new MsgHdrs(m.headers) : undefined,
        string: function () { return data.toString('utf8'); },
        json: function () { return JSON.parse(data.toString('utf8')); },
        respond: function (d, opts) { if (!m.reply) return false; conn.publish(m.reply, d, opts); return true; },
      };
    }
    this.info = { server_id: server, connected_url: server };
    this.getServer = function () { return server; };
    this.isClosed = function () { return closed; };
    this.isDraining = function () { return false; };
    this.publish = function (subject, data, opts) {
      live();
      opts = opts || {};
      var fields = { conn: id, subject: String(subject), data: b64(data) };
      if (opts.reply) fields.reply = String(opts.reply);
      var h = headersOf(opts.headers);
      if (h) fields.headers = h;
      // Sent in order with the run's other NATS calls; a failure is reported by the next flush().
      sent = call('publish', fields).catch(function (e) { failure = failure || e; });
    };
    this.request = function (subject, data, opts) {
      try { live(); } catch (e) { return Promise.reject(e); }
      opts = opts || {};
      var fields = { conn: id, subject: String(subject), data: b64(data), timeout: opts.timeout === undefined ? 1000 : Number(opts.timeout) };
      var h = headersOf(opts.headers);
      if (h) fields.headers = h;
      return call('request', fields).then(message);
    };
    this.subscribe = function (subject, opts) {
      live();
      opts = opts || {};
      var fields = { conn: id, subject: String(subject) };
      if (opts.queue) fields.queue = String(opts.queue);
      if (opts.max) fields.max = Number(opts.max);
      var subId = call('subscribe', fields);
      var processed = 0;
      var done = false;
      var pulling = Promise.resolve();
      function next() {
        if (done) return Promise.resolve({ value: undefined, done: true });
        // One pull at a time, in order.
        var p = pulling.then(function () { return subId; }).then(function (sid) { return call('next', { sub: sid }); }).then(function (m) {
          if (!m) { done = true; return { value: undefined, done: true }; }
          processed++;
          return { value: message(m), done: false };
        });
        pulling = p.catch(function () {});
        return p;
      }
      var sub = {
        getSubject: function () { return String(subject); },
        getProcessed: function () { return processed; },
        getReceived: function () { return processed; },
        getMax: function () { return opts.max; },
        isClosed: function () { return done; },
        unsubscribe: function (max) { subId.then(function (sid) { return call('unsubscribe', { sub: sid, max: max === undefined ? null : Number(max) }); }).catch(function () {}); if (max === undefined) done = true; },
        drain: function () { return subId.then(function (sid) { return call('unsubscribe', { sub: sid, max: null }); }).then(function () { done = true; }); },
        closed: null,
        next: next,
      };
      sub[Symbol.asyncIterator] = function () { return { next: next, return: function () { sub.unsubscribe(); return Promise.resolve({ value: undefined, done: true }); } }; };
      if (typeof opts.callback === 'function') {
        var cb = opts.callback;
        (function pump() {
          next().then(function (r) {
            if (r.done) return;
            try { cb(null, r.value); } catch (e) { /* a throwing callback does not end the subscription */ }
            pump();
          }, function (err) { cb(err, null); });
        })();
      }
      subId.catch(function () { done = true; });
      return sub;
    };
    this.flush = function () {
      try { live(); } catch (e) { return Promise.reject(e); }
      return sent.then(function () { return call('flush', { conn: id }); }).then(function () {
        if (failure) { var f = failure; failure = null; throw f; }
      });
    };
    this.drain = function () {
      if (closed) return Promise.resolve();
      return sent.then(function () { return call('close', { conn: id, drain: true }); }).then(function () { closed = true; onClosed(); });
    };
    this.close = function () {
      if (closed) return Promise.resolve();
      return sent.then(function () { return call('close', { conn: id, drain: false }); }).then(function () { closed = true; onClosed(); });
    };
    this.closed = function () { return closedPromise; };
  }
  function connect(opts) {
    opts = opts || {};
    var servers = opts.servers === undefined ? ['127.0.0.1:4222'] : Array.isArray(opts.servers) ? opts.servers.map(String) : [String(opts.servers)];
    var fields = { servers: servers };
    ['user', 'pass', 'token', 'name'].forEach(function (k) { if (opts[k] !== undefined) fields[k] = String(opts[k]); });
    if (opts.timeout !== undefined) fields.timeout = Number(opts.timeout);
    return call('connect', fields).then(function (r) { return new Connection(r.id, r.server); });
  }
  function StringCodec() {
    return { encode: function (s) { return Buffer.from(String(s)); }, decode: function (b) { return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'); } };
  }
  function JSONCodec() {
    return { encode: function (v) { return Buffer.from(JSON.stringify(v)); }, decode: function (b) { return JSON.parse(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')); } };
  }
  return { connect: connect, StringCodec: StringCodec, JSONCodec: JSONCodec, headers: headers, Empty: new Uint8Array(0) };
})`,
};

/** Wraps a user script so that top-level `await` works; line 1 of the script stays line 1. */
export function wrapScript(script: string): string {
  return `(async () => { ${script}\n})()`;
}
