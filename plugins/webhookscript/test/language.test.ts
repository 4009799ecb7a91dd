// The language as reference.markdown describes it: syntax, data types, operators and their
// precedence, control structures, functions and closures, chaining, and errors with positions.
import { describe, expect, it } from 'vitest';
import { parse } from '../src/lang/parser.js';
import { error, output, value } from './helpers.js';

describe('syntax', () => {
  it('separates statements with semicolons or new lines', async () => {
    expect(await output('a = 1 + 2; b = a + 3;\nc = b - a; dump(c)')).toEqual(['3']);
    expect(await output('a = 1 + 2\nb = a + 3\nc = b - a\ndump(c)')).toEqual(['3']);
  });

  it('lets expressions span lines inside brackets and before a chained call', async () => {
    expect(await output("x = [\n  'a': 1,\n  'b': 2,\n]\necho(\n  '{} {}'.format(\n    x['a'],\n    x['b']\n  )\n)\ny = 'a'\n  .string_upper()\necho(y)")).toEqual(['1 2', 'A']);
  });

  it('does not call across a line break', async () => {
    expect(await output("a = 'x'\n(1 + 2).echo()\necho(a)")).toEqual(['3', 'x']);
  });

  it('ignores // and /* */ comments', async () => {
    expect(await output('a = 1 // one\n/* two\nlines */ b = 2\ndump(a + b) // three')).toEqual(['3']);
  });

  it('reads strings in both quotes, across lines, with escapes', async () => {
    expect(await value(`'it\\'s'`)).toBe(`"it's"`);
    expect(await value(`"a\\tb\\nc"`)).toBe('"a\\tb\\nc"');
    expect(await output("echo('line 1\nline 2')")).toEqual(['line 1\nline 2']);
    // Unknown escapes keep their backslash (PHP), so regex strings read naturally.
    expect(await output(`echo('\\d+ \\\\h')`)).toEqual(['\\d+ \\h']);
  });

  it('reads numbers: integers, floats, and a number followed by a chained call', async () => {
    expect(await value('5.to_string()')).toBe('"5"');
    expect(await value('1.25 + .75')).toBe('2');
    expect(await value('1e3')).toBe('1000');
  });
});

describe('data types', () => {
  it('names the six types and null', async () => {
    expect(await output('for (v in [true, 1, "s", r"x", [1], () => { return 1; }, null]) { echo(type(v)) }')).toEqual(['bool', 'number', 'string', 'regex', 'array', 'function', 'null']);
  });

  it('compares bools and refuses a bool against a string', async () => {
    expect(await value('1 == 2')).toBe('false');
    expect(await value('(1 == 2) == false')).toBe('true');
    expect(await error('c = true\nd = c == "hello"')).toBe("Error at line 2:5: Cannot compare 'bool' and 'string'");
  });

  it('matches strings against regexes with ==', async () => {
    expect(await value('"hello" == r"[0-9]"')).toBe('false');
    expect(await value('"hello" == r"l{2}"')).toBe('true');
    expect(await value('"facebook" == r"[o]{2}.*"')).toBe('true');
  });

  it('compares numeric strings with numbers (variables are text) and null with anything', async () => {
    expect(await value('"1" == 1')).toBe('true');
    expect(await value('"1.50" == 1.5')).toBe('true');
    expect(await value('"a" == 1')).toBe('false');
    expect(await value('null == 200')).toBe('false');
    expect(await value('null != 200')).toBe('true');
  });

  it('keeps integers and floats', async () => {
    expect(await value('4 - 3')).toBe('1');
    expect(await value('(4 - 3) / 3')).toBe('0.3333333333333333');
  });

  it('handles multibyte strings', async () => {
    expect(await value('"hello" + " " + "wóóórld!"')).toBe('"hello wóóórld!"');
    expect(await value('"wóóórld".length()')).toBe('7');
  });

  it('builds arrays with optional keys, continuing after the highest integer key', async () => {
    expect(await value('["abc", 123, 4: true, false, r"[A-Z]+"]')).toBe('[0: "abc", 1: 123, 4: true, 5: false, 6: r"[A-Z]+"]');
    expect(await value('["x", "b": "z"]')).toBe('[0: "x", "b": "z"]');
    expect(await output('e = ["x", "b": "z"]\ne["c"] = "x"\ndump(e)\ne[] = "y"\ndump(e)')).toEqual(['[0: "x", "b": "z", "c": "x"]', '[0: "x", "b": "z", "c": "x", 1: "y"]']);
  });

  it('normalises integer-like string keys (PHP)', async () => {
    expect(await value('["123": "a"][123]')).toBe('"a"');
    expect(await value('[5: "a"]["5"]')).toBe('"a"');
  });

  it('gives null for a missing key and creates nested arrays on assignment', async () => {
    expect(await value('["a": 1]["b"]')).toBe('null');
    expect(await output('x = []\nx["a"]["b"] = 1\ndump(x)')).toEqual(['["a": ["b": 1]]']);
  });

  it('shares arrays by reference; array_copy copies', async () => {
    expect(await output('a = [1]\nb = a\nb.push(2)\nc = a.array_copy()\nc.push(3)\ndump(a, c)')).toEqual(['[0: 1, 1: 2]\n[0: 1, 1: 2, 2: 3]']);
  });

  it('builds ranges with an optional step', async () => {
    expect(await value('1..4')).toBe('[0: 1, 1: 2, 2: 3, 3: 4]');
    expect(await value('1..2..4')).toBe('[0: 1, 1: 3]');
    expect(await value('10..4..16')).toBe('[0: 10, 1: 14]');
    expect(await output('_x = 3\n_y = 6\n_z = 2\ndump(_x.._z.._y)')).toEqual(['[0: 3, 1: 5]']);
    expect(await value('3..1')).toBe('[0: 3, 1: 2, 2: 1]');
  });

  it('indexes strings by character', async () => {
    expect(await value('"wóó"[1]')).toBe('"ó"');
  });
});

describe('operators', () => {
  it.each([
    ['1 + 2 + 3 + 4', '10'],
    ['1 - 2 + 3 - 4', '-2'],
    ['1 + 2 * 3 + 4', '11'],
    ['1 + 2 * 3 / 4', '2.5'],
    ['1 + -2 * 3 / 4', '-0.5'],
    ['1 and 2 or 3 and 4', 'true'],
    ['1 or 2 or 3 and 4', 'true'],
    ['1 or !2 or !3 and 4', 'true'],
    ['false or !true and true', 'false'],
    ['!1 == false', 'true'],
    ['2 * (3 + 4)', '14'],
    ['7 % 4', '3'],
  ])('%s = %s', async (expr, expected) => {
    expect(await value(expr)).toBe(expected);
  });

  it('assigns with the lowest precedence', async () => {
    expect(await output('x = true or false and true\ndump(x)\na = 5\nb = 5\nx = a == b\ndump(x)\nx = a > 5 and b < 6\ndump(x)')).toEqual(['true', 'true', 'false']);
  });

  it('negates', async () => {
    expect(await output('a = true\nb = !a\nc = !b\nd = !!b\ndump(b, c, d)')).toEqual(['false\ntrue\nfalse']);
  });

  it('does string arithmetic as documented', async () => {
    expect(await value('"a word and number " + 5.to_string()')).toBe('"a word and number 5"');
    expect(await value('"a word" + " and one more"')).toBe('"a word and one more"');
    expect(await value('"a word" - "or"')).toBe('"a wd"');
    expect(await value('"regular expressions" - r"regul[ar]+\\s*"')).toBe('"expressions"');
    expect(await value('2 * "3"')).toBe('"33"');
    expect(await value('"3" * 4')).toBe('"3333"');
    expect(await value('1 * -2')).toBe('-2');
    expect(await value('5 / 4')).toBe('1.25');
    expect(await value('5 / 5')).toBe('1');
  });

  it.each([
    ['5 + "4"', "Cannot use operator '+' with 'number' and 'string'"],
    ['"a word and number " + 5', "Cannot use operator '+' with 'string' and 'number'"],
    ['"2" * "3"', "Cannot use operator '*' with 'string' and 'string'"],
    ['5 / "4"', "Cannot use operator '/' with 'number' and 'string'"],
    ['"20" / 4', "Cannot use operator '/' with 'string' and 'number'"],
    ['1 / 0', 'Division by zero'],
  ])('%s is an error', async (expr, message) => {
    expect(await error(`_x = ${expr}`)).toBe(`Error at line 1:6: ${message}`);
  });

  it('chains comparisons', async () => {
    expect(await value('5 > 3 > 0')).toBe('true');
    expect(await value('5 > 7 > 0')).toBe('false');
    expect(await value('"a" < "b" <= "b"')).toBe('true');
  });

  it('accepts && || and compound assignment', async () => {
    expect(await output('a = 1\na += 2\na *= 3\ndump(a, true && false || true)\ns = "x"\ns += "y"\ndump(s)')).toEqual(['9\ntrue', '"xy"']);
  });
});

describe('control structures', () => {
  it('runs if / else / else if', async () => {
    expect(await output('a = true\nif (a) { b = 1; }\nc = false\nif (c) { d = 1; } else { d = 2; }\ndump(b, d)')).toEqual(['1\n2']);
    expect(await output('a = false; b = true; c = 5\nif (a or b) {\n  d = 1\n  if (d < c) {\n    e = d + c\n  }\n}\ndump(d, e)')).toEqual(['1\n6']);
    expect(await output('x = 2\nif (x == 1) echo("one") else if (x == 2) echo("two") else echo("many")')).toEqual(['two']);
  });

  it('loops with for (x in array), over strings, with keys', async () => {
    const prices = `prices = [100, 200, 300, 600, 1200];
sentence_template = "This costs {} units of money!";
results = [];
for (price in prices) {
    results.push(sentence_template.format(price));
}
dump(results)`;
    expect(await output(prices)).toEqual([
      '[0: "This costs 100 units of money!", 1: "This costs 200 units of money!", 2: "This costs 300 units of money!", 3: "This costs 600 units of money!", 4: "This costs 1200 units of money!"]',
    ]);
    expect(await output('for (k, v in ["a": 1, "b": 2]) { echo(k + "=" + v.to_string()) }')).toEqual(['a=1', 'b=2']);
  });

  it('loops with while, break and continue', async () => {
    expect(await output('c = 0\ntotal = 0\nwhile (c < 100) {\n  total = total + c\n  c = c + 1\n}\ndump(total)')).toEqual(['4950']);
    expect(await output('out = []\nfor (i in 1..10) {\n  if (i % 2 == 0) { continue }\n  if (i > 7) { break }\n  out.push(i)\n}\ndump(out)')).toEqual(['[0: 1, 1: 3, 2: 5, 3: 7]']);
    expect(await output('for (i = 0; i < 3; i += 1) { echo(i) }')).toEqual(['0', '1', '2']);
  });

  it('iterates over a snapshot, so changing the array inside the loop is safe', async () => {
    expect(await output('a = [1, 2]\nfor (x in a) { a.push(x) }\ndump(a)')).toEqual(['[0: 1, 1: 2, 2: 1, 3: 2]']);
  });
});

describe('functions', () => {
  it('defines functions three ways and calls anonymous ones directly', async () => {
    const src = `function sub(a, b) {
    return a - b;
}
dump(sub(1, 2))
sub_2 = function(a, b) {
    return a - b;
};
dump(sub_2(1, 2))
sub_3 = (a, b) => {
    return a - b;
};
dump(sub_3(1, 2))
dump(((a, b) => {
    return a - b;
})(1, 2));
double = x => x * 2
dump(double(4))`;
    expect(await output(src)).toEqual(['-1', '-1', '-1', '-1', '8']);
  });

  it('captures surrounding variables; assignments inside stay local', async () => {
    expect(await output('n = 10\nf = (x) => { return x + n }\ndump(f(1))\nfunction g() { n = 99; return n }\ndump(g(), n)')).toEqual(['11', '99\n10']);
    expect(await output('function counter() { c = 0; return () => { c = c + 1; return c } }\nf = counter()\ndump(f(), f())')).toEqual(['1\n1']);
    expect(await output('acc = []\nf = (x) => { acc.push(x) }\nf(1)\nf(2)\ndump(acc)')).toEqual(['[0: 1, 1: 2]']);
  });

  it('recurses', async () => {
    expect(await output('function fact(n) { if (n <= 1) { return 1 } return n * fact(n - 1) }\ndump(fact(10))')).toEqual(['3628800']);
  });

  it('gives missing arguments null or their default', async () => {
    expect(await output('function f(a, b = 5) { return [a, b] }\ndump(f(), f(1, 2))')).toEqual(['[0: null, 1: 5]\n[0: 1, 1: 2]']);
  });

  it('passes functions as values, library functions too', async () => {
    expect(await value('array_map([1, 2], to_string)')).toBe('[0: "1", 1: "2"]');
  });

  it('chains calls: x.f(a) is f(x, a), string_f / array_f chosen by type', async () => {
    expect(await output("'Hello World'.echo()\n'Hello World'.hash('md5').echo()")).toEqual(['Hello World', 'b10a8db164e0754105b7a99be72e3fe5']);
    expect(await output("echo(string_format('hello %s', 'world'))\n'hello %s'.format('world').echo()")).toEqual(['hello world', 'hello world']);
    expect(await value('[1, 2, 3].length() + "abc".length()')).toBe('6');
    expect(await value('format("{}!", "hi")')).toBe('"hi!"');
    expect(await output('function string_shout(s) { return s.string_upper() + "!" }\n"hey".shout().echo()')).toEqual(['HEY!']);
  });

  it('lets a variable shadow a library function name without breaking calls', async () => {
    expect(await output("hmac = hmac('x', 'sha256', 'k')\nagain = hmac('x', 'sha256', 'k')\ndump(hmac == again)")).toEqual(['true']);
  });

  it('returns from the top level, ending the script', async () => {
    expect(await output('echo(1)\nreturn\necho(2)')).toEqual(['1']);
  });
});

describe('errors name their line and column', () => {
  it.each([
    ['a = 1\nb = (2 + \n', 'Syntax error at line 3:1: Unexpected end of the script: an expression is missing'],
    ['a = 1 ?', 'Syntax error at line 1:7: Unexpected character "?"'],
    ['x = $request.content$', `Syntax error at line 1:5: Unexpected "$": variables are read with var('name') and written with set('name', value)`],
    ['if (x {\n}', 'Syntax error at line 1:7: Expected ")" after the condition but found "{"'],
    ["a = 'open", 'Syntax error at line 1:5: Unterminated string'],
    ['a = [1, 2', 'Syntax error at line 1:10: Expected "]" to close the "[" at line 1:5 but found the end of the script'],
    ['a = 1 b = 2', 'Syntax error at line 1:7: Unexpected "b": expected ";" or a new line'],
    ['break', 'Syntax error at line 1:1: "break" outside a loop'],
    ['function f( {', 'Syntax error at line 1:13: Expected a parameter name but found "{"'],
    ['x = a.b', 'Syntax error at line 1:6: Expected "(" after ".b": only functions can follow a "." (value.b())'],
  ])('%j', async (src, message) => {
    expect(await error(src)).toBe(message);
  });

  it.each([
    ['a = 1\n\necho(b)', 'Error at line 3:6: Undefined variable "b"'],
    ['a = 1\n  nope(1)', 'Error at line 2:3: Undefined function "nope"'],
    ['x = 5\nx()', 'Error at line 2:1: "x" is a number, not a function'],
    ['for (c in 5) {}', 'Error at line 1:1: Cannot loop over number: for (... in ...) takes an array or a string'],
    ['function f(x) {\n  return x.nope()\n}\nf(1)', 'Error at line 2:12: Undefined function "nope" for number (there is no number_nope() or nope())'],
    ["json_decode('{}', 1, 2)\nx = 'a'.string_slice('b')", 'Error at line 2:9: string_slice(): the second argument must be a number, not the string "b"'],
    ["db('x')('select 1')", 'Error at line 1:1: db("x")(): Databases are not configured in this test (pass services.databases)'],
  ])('%j', async (src, message) => {
    expect(await error(src)).toBe(message);
  });

  it('keeps output written before the error', async () => {
    const { run } = await import('./helpers.js');
    const r = await run('echo("before")\nx = 1 / 0\necho("after")');
    expect(r.output).toEqual(['before']);
    expect(r.errors).toEqual(['Error at line 2:5: Division by zero']);
  });

  it('parses into a tree with positions', () => {
    const p = parse('x = 1\nif (x) {\n  y = x.to_string()\n}');
    expect(p.body.map((s) => [s.kind, s.line, s.col])).toEqual([
      ['expr', 1, 1],
      ['if', 2, 1],
    ]);
  });
});
