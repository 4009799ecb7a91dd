// The function pages' examples (webhookscript/functions/*.md, reference.markdown) with the results
// the docs give. Where the docs' comment is wrong (a typo in the example) the case says so.
import { describe, expect, it } from 'vitest';
import { output } from './helpers.js';

const XML = `<orders>
  <record>
    <Name type="full">John Doe</Name>
    <Reference>49690</Reference>
  </record>
  <record>
    <Name type="username">someone@example.com</Name>
    <Reference>49690</Reference>
  </record>
</orders>`;

const ORG = `<?xml version="1.0"?>
<organization name="ExampleCo">
  <employees>
    <employee id="1">Jack</employee>
    <employee id="2">Ann</employee>
  </employees>
</organization>`;

// [function, script, output lines]
const CASES: Array<[string, string, string[]]> = [
  // general.md
  ['echo chained', "'Hello World'.echo()", ['Hello World']],
  ['string_format', "echo(string_format('hello %s', 'world'))\n'hello %s'.format('world').echo()", ['hello world', 'hello world']],
  ['type', 'echo(type("x"))', ['string']],
  // bool.md
  ['is_null', "value = 'example'\nif (is_null(value)) { echo('null') }\ndump(is_null(null))", ['true']],
  ['is_empty', 'dump(is_empty(""), is_empty([]), is_empty(null), is_empty("x"))', ['true\ntrue\ntrue\nfalse']],
  ['bool_and / bool_not / to_bool', 'dump(bool_and(true, false), bool_not(false), to_bool(1), to_bool("0"), to_bool([1]))', ['false\ntrue\ntrue\nfalse\ntrue']],
  // math.md
  ['round', 'dump(round(1.39, 1), round(2.5), round(-2.5), round(1.955, 2))', ['1.4\n3\n-3\n1.96']],
  ['is_numeric', 'dump(is_numeric(12345), is_numeric("1.0"), is_numeric(null), is_numeric("abc"))', ['true\ntrue\nfalse\nfalse']],
  ['max / min / mod / pow / sqrt / abs', 'dump(max([1, 5, 3]), min([4, 2, 8]), max(1, 9), mod(10, 3), pow(2, 10), sqrt(16), abs(-3))', ['5\n2\n9\n1\n1024\n4\n3']],
  ['ceil / floor / pi', 'dump(ceil(1.2), floor(1.8), round(pi(), 5))', ['2\n1\n3.14159']],
  ['hex and binary', "dump(num2hex(255), hex2num('ff'), bin2hex('abc'), hex2bin('616263'), hex2bin('zz'))", ['"ff"\n255\n"616263"\n"abc"\nnull']],
  ['trigonometry', 'dump(sin(0), cos(0), round(tan(1), 4), round(atan(1), 4))', ['0\n1\n1.5574\n0.7854']],
  ['number_length / to_number', 'dump(number_length(12345), to_number("42"), to_number("1.5") + 1)', ['5\n42\n2.5']],
  // string.md
  ['string_replace', "echo(string_replace('this is a sentence', 'sentence', 'string'))\necho(string_replace('this is great', r'(.*) is (.*)', '$1 was $2'))", ['this is a string', 'this was great']],
  ['string_replace pairs', `echo(string_replace("hello, it's good", [\n    'hello': 'hi',\n    'good': 'great'\n]))`, ["hi, it's great"]],
  ['string_slice', "dump(string_slice('hello world', 0, 5), string_slice('hello world', 6))", ['"hello"\n"world"']],
  ['string_title / upper / lower', "dump(string_title('hello world'), 'wóó'.string_upper(), 'ÅB'.lower())", ['"Hello World"\n"WÓÓ"\n"åb"']],
  [
    'string_contains / find / length / reverse',
    "dump('abc'.contains('b'), 'abc'.contains(r'^a'), 'abcb'.string_find_first('b'), 'abcb'.string_find_last('b'), 'abc'.string_find_first('x'), 'wó'.string_reverse())",
    ['true\ntrue\n1\n3\nfalse\n"ów"'],
  ],
  ['string_split', "dump('a,b,c'.split(','), 'a1b22c'.split(r'\\d+'))", ['[0: "a", 1: "b", 2: "c"]\n[0: "a", 1: "b", 2: "c"]']],
  ['string_number_of', "dump('a-b-c'.number_of('-'), string_number_of('12'))", ['2\n12']],
  ['trim', `dump(trim("  x \\n"), trim("--x--", "-"))`, ['"x"\n"x"']],
  ['to_string / to_regex', 'dump(to_string(5), to_string(true), to_regex("a+"), to_regex("/a+/i") == "AAA")', ['"5"\n"true"\nr"a+"\ntrue']],
  ['string_random / uuid / shuffle', "dump(string_random(12).length(), uuid() == r'^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$', 'abc'.shuffle().length())", ['12\ntrue\n3']],
  [
    'csv_to_array (the docs show other names in the output)',
    `csv_content = 'firstname,lastname,title\n"M. J.",Plumley,"Sr. Developer"\nEmily,"Jenna Platt","Chief Information Officer"'\narray = csv_to_array(csv_content, ',', 0)\necho(json_encode(array))`,
    [
      '[\n    {\n        "firstname": "M. J.",\n        "lastname": "Plumley",\n        "title": "Sr. Developer"\n    },\n    {\n        "firstname": "Emily",\n        "lastname": "Jenna Platt",\n        "title": "Chief Information Officer"\n    }\n]',
    ],
  ],
  ['csv_to_array without header, bad CSV', `dump(csv_to_array("a;b\\n1;2", ";"), csv_to_array('"open'))`, ['[0: [0: "a", 1: "b"], 1: [0: "1", 1: "2"]]\nfalse']],
  ['base64', "dump(base64_encode('hello?'), base64_decode('aGVsbG8/'), base64_urlencode('hello?'), base64_urldecode('aGVsbG8_'), base64url_encode('hi'))", ['"aGVsbG8/"\n"hello?"\n"aGVsbG8_"\n"hello?"\n"aGk"']],
  [
    'hash',
    "echo('hello world'.hash('md5'))\necho(hash('abc', 'sha256'))\necho(hash('hello world', 'crc32b'))\necho(hash('abc', 'sha512/256'))",
    ['5eb63bbbe01eeed093cb22bb8f5acdc3', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', '0d4a1185', '53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23'],
  ],
  [
    'hash: PHP non-cryptographic ones',
    "dump(hash('abc', 'adler32'), hash('abc', 'fnv1a32'), hash('abc', 'joaat'), hash('123456789', 'crc32'), hash('123456789', 'crc32b'))",
    ['"024d0127"\n"1a47e90b"\n"ed131f5b"\n"181989fc"\n"cbf43926"'],
  ],
  [
    'hmac, hex2bin and base64',
    "hmac = hmac('payload', 'sha256', 'secret')\necho(hmac)\necho(base64_encode(hex2bin(hmac)))",
    ['b82fcb791acec57859b989b430a826488ce2e479fdf92326bd0a2e8375a42ba4', 'uC/LeRrOxXhZuYm0MKgmSIzi5Hn9+SMmvQoug3WkK6Q='],
  ],
  ['digest', "echo(digest('abc', 'sha1'))", ['a9993e364706816aba3e25717850c26c9cd0d89d']],
  [
    'html',
    "dump(html_strip_tags('<b>test</b>'), html_to_text('<b>test</b>'), html_decode('&lt;p&gt; &amp;&nbsp;&eacute;&#x41;'), html_encode('<a href=\"x\">'))",
    ['"test"\n"test"\n"<p> &\u00a0éA"\n"&lt;a href=&quot;x&quot;&gt;"'],
  ],
  ['markdown_to_html', "echo(markdown_to_html('# Hello world'))\necho(markdown_to_html('<b>x</b>', true))", ['<h1>Hello world</h1>', '<p>&lt;b&gt;x&lt;/b&gt;</p>']],
  ['is_json', 'is_json(\'{"test": "test"}\').dump()\nis_json(\'{x\').dump()', ['true', 'false']],
  [
    'json_decode / json_encode',
    `dump(json_decode('{"a": [1, {"b": null}]}'), json_decode('nope'))\necho(json_encode(["a": 1, "b": [1, 2]], false))\necho(json_encode([]))`,
    ['["a": [0: 1, 1: ["b": null]]]\nnull', '{"a":1,"b":[1,2]}', '[]'],
  ],
  [
    'json_path',
    `dump(json_path('{"v": []}', 'v[*]', false))\ndump(json_path('{"v": []}', 'v[*]'))\ndump(json_path('{"v": ["item1"]}', 'v[*]', false))\ndump(json_path('{"v": ["item1"]}', 'v[*]'))\ndump(json_path('{"v": ["item1", "item2"]}', 'v[*]', false))\ndump(json_path('{"v": ["item1", "item2"]}', 'v[*]'))`,
    ['[]', '""', '[0: "item1"]', '"item1"', '[0: "item1", 1: "item2"]', '[0: "item1", 1: "item2"]'],
  ],
  ['json_escape', `echo(json_escape('say "hi"\\n'))`, ['say \\"hi\\"\\n']],
  [
    'preg_match',
    `content = 'x<html>in\nside</html>y'\nhtml = preg_match('/<html>(.*)<\\\\/html>/s', content)\ndump(html)\ndump(preg_match('/(?<word>[a-z]+)/', '12ab'), preg_match('/z/', 'a'))`,
    ['[0: "<html>in\\nside</html>", 1: "in\\nside"]', '[0: "ab", 1: "ab", "word": "ab"]\nfalse'],
  ],
  ['regex_extract', `input = "You're a good bot"\noutput = regex_extract(r"You're (\\w) (.*)", input)\ndump(output)`, [`[0: "You're a good bot", 1: "a", 2: "good bot"]`]],
  [
    'regex_extract_first',
    `input = "You're a good bot"\ndump(regex_extract_first(r"You're (.*)", input))\ninput = "Hello world"\ndump(regex_extract_first(r"You're (.*)", input, 'no value'), regex_extract_first(r"x", input))`,
    ['"a good bot"', '"no value"\nfalse'],
  ],
  ['regex_match / regex_to_string', `dump(regex_match(r"You're .*", "You're a good bot"), regex_match(r"x", "y"), regex_to_string(r"a+"))`, [`"You're a good bot"\nfalse\n"a+"`]],
  [
    'xml2array',
    `echo(json_encode(xml2array('${XML}')))`,
    [
      JSON.stringify(
        {
          orders: {
            record: [
              { Name: { '@value': 'John Doe', '@attributes': { type: 'full' } }, Reference: 49690 },
              { Name: { '@value': 'someone@example.com', '@attributes': { type: 'username' } }, Reference: 49690 },
            ],
          },
        },
        null,
        4,
      ),
    ],
  ],
  ['xpath / xpath_all', `xml = '${ORG}'\ndump(xpath(xml, '//employee[1]'), xpath_all(xml, '//employee'), xpath('//employee[2]/@id', xml))`, ['"Jack"\n[0: "Jack", 1: "Ann"]\n"2"']],
  ['convert_kana', "dump(convert_kana('ｱｲｳ ｶﾞ', 'KV'), convert_kana('ＡＢＣ１２３', 'a'), convert_kana('abc', 'R'), convert_kana('ひらがな', 'C'))", ['"アイウ ガ"\n"ABC123"\n"ａｂｃ"\n"ヒラガナ"']],
  // array.md
  ['array_contains', "employees = [6547: 'Simon', 235345: 'Jack', 4657: 'Jim']\ndump(array_contains(employees, 'Simon'), employees.contains('Bob'))", ['true\nfalse']],
  [
    'array_chunk',
    "test_arr = [\n    'a': 123,\n    'b': 234,\n    'c': 345,\n    'd': 345, \n    'e': 456\n]\ndump(array_chunk(test_arr, 2, true))\ndump(array_chunk(test_arr, 2, false))",
    ['[0: ["a": 123, "b": 234], 1: ["c": 345, "d": 345], 2: ["e": 456]]', '[0: [0: 123, 1: 234], 1: [0: 345, 1: 345], 2: [0: 456]]'],
  ],
  ['array_has', "employees = [6547: 'Simon', 235345: 'Jack', 4657: 'Jim']\ndump(array_has(employees, 235345), employees.has(1))", ['true\nfalse']],
  ['array_join', "dump(['hello', 'world'].join(','))", ['"hello,world"']],
  [
    'array_map',
    "employees = ['Simon', 'Jack', 'Jim']\nresult = array_map(employees, function (employee) {\n    return 'Hello, '+employee+'!'\n})\ndump(result)",
    ['[0: "Hello, Simon!", 1: "Hello, Jack!", 2: "Hello, Jim!"]'],
  ],
  ['array_merge', 'test1 = [123, 234, 345]\ntest2 = [345, 456]\ndump(array_merge(test1, test2))\ndump(array_merge(["a": 1, 5: "x"], ["a": 2]))', ['[0: 123, 1: 234, 2: 345, 3: 345, 4: 456]', '["a": 2, 0: "x"]']],
  [
    'array_range / array_slice',
    "array = ['one', 'two', 'three', 'four', 'five']\ndump(array_slice(array, 2))\ndump(array_slice(array, 2, 2))\ndump(array_range(array, -3, 2))",
    ['[0: "three", 1: "four", 2: "five"]', '[0: "three", 1: "four"]', '[0: "three", 1: "four"]'],
  ],
  ['array_reverse', "employees = [6547: 'Simon', 235345: 'Jack', 4657: 'Jim']\ndump(array_reverse(employees))", ['[0: "Jim", 1: "Jack", 2: "Simon"]']],
  [
    'array_splice',
    "array = ['one', 'two', 'three', 'four', 'five']\ndump(array_splice(array, 2, 2))\ndump(array_splice(array, 2, 2, ['hello']))",
    ['[0: "one", 1: "two", 2: "five"]', '[0: "one", 1: "two", 2: "hello", 3: "five"]'],
  ],
  ['array_values / keys', "employees = [6547: 'Simon', 235345: 'Jack', 4657: 'Jim']\ndump(array_values(employees))\ndump(employees.keys())", ['[0: "Simon", 1: "Jack", 2: "Jim"]', '[0: 6547, 1: 235345, 2: 4657]']],
  ['array_push / pop / length / get / number_of', 'a = [1, 2]\ndump(a.push(3), a.length(), a.pop(), a, a.get(5, "d"), [1, 2, 1].number_of(1))', ['3\n3\n3\n[0: 1, 1: 2]\n"d"\n2']],
  ['array_diff / copy / to_array', 'dump(array_diff(["a": 1, "b": 2, "c": 3], [2]), to_array("x"))', ['["a": 1, "c": 3]\n[0: "x"]']],
  ['array_sort keeps keys', 'dump(["c", "a", "b"].sort(), [3, 1, 2].sort((a, b) => { return b - a }))', ['[1: "a", 2: "b", 0: "c"]\n[0: 3, 2: 2, 1: 1]']],
  ['array_random / shuffle', 'a = [1, 2, 3]\ndump(a.contains(a.random()), a.shuffle().length())', ['true\n3']],
  // network.md
  ['query', "echo(query(['country': 'Curaçao', 'population': 158665]))\necho(query(['a': ['b': 1, 'c': [2]]]))", ['country=Cura%C3%A7ao&population=158665', 'a%5Bb%5D=1&a%5Bc%5D%5B0%5D=2']],
  ['url_encode / url_decode', "echo(url_encode('here\\'s a value'))\necho(url_decode('here%27s+a+value%C3%A7'))", ['here%27s+a+value', "here's a valueç"]],
  // date.md (the clock of the tests is 2024-01-02T03:04:05Z)
  ['now', "dump(now(), now('America/Los_Angeles'))", ['"2024-01-02T03:04:05.000000Z"\n"2024-01-01T19:04:05.000000-08:00"']],
  ['to_date', "dump('now'.to_date(), '2020-01-01 23:02:01'.to_date(), '@1215282385'.to_date())", ['"2024-01-02T03:04:05.000000Z"\n"2020-01-01T23:02:01.000000Z"\n"2008-07-05T18:26:25.000000Z"']],
  ['to_date with a timezone', "dump('2020-01-01 23:02:01'.to_date(null, null, 'GMT-5'), '2020-01-01 23:02:01'.to_date(null, null, 'GMT-5', true))", ['"2020-01-02T04:02:01.000000Z"\n"2020-01-01T23:02:01.000000-05:00"']],
  [
    'to_date with a format',
    "dump('2/4/12 06:03'.to_date('M/D/YY HH:mm'), '2020-01-05 12h30m15s'.to_date('YYYY-MM-DD HH\\\\hmm\\\\mss\\\\s'), 'nonsense'.to_date())",
    ['"2012-02-04T06:03:00.000000Z"\n"2020-01-05T12:30:15.000000Z"\nnull'],
  ],
  [
    'to_date relative',
    "dump('first monday of august 2019'.to_date(), 'next Thursday'.to_date(), 'last Monday'.to_date(), 'first day of January 2008'.to_date(), 'first Saturday of July 2008'.to_date(), 'Monday next week'.to_date(), '+4 day'.to_date(), '-2 month'.to_date())",
    [
      '"2019-08-05T00:00:00.000000Z"\n"2024-01-04T00:00:00.000000Z"\n"2024-01-01T00:00:00.000000Z"\n"2008-01-01T00:00:00.000000Z"\n"2008-07-05T00:00:00.000000Z"\n"2024-01-08T00:00:00.000000Z"\n"2024-01-06T03:04:05.000000Z"\n"2023-11-02T03:04:05.000000Z"',
    ],
  ],
  [
    'date_format',
    "dump(date_format('2008-07-05T18:26:25.000000Z', 'YYYY-MM-DD'), date_format('2008-07-05T18:26:25.000000Z', 'LLLL', 'da'), date_format('2020-01-01T23:02:01.000000-05:00', 'LLLL', null, 'GMT+2'), date_format('now', 'x'))",
    ['"2008-07-05"\n"lørdag d. 5. juli 2008 kl. 18:26"\n"Thursday, January 2, 2020 6:02 AM"\n"1704164645000"'],
  ],
  [
    'date_format with modifiers and timestamps',
    "dump(date_format('2021-10-28 11:28:55 +1 hour', 'YYYY-MM-DD HH:mm:ss'), date_format('@1718463517', 'YYYY-MM-DD HH:mm:ss', null, 'GMT+10'), date_format('2022-12-15T11:00:00.000000Z +5 minute', 'HH:mm'))",
    ['"2021-10-28 12:28:55"\n"2024-06-16 00:58:37"\n"11:05"'],
  ],
  [
    'date format characters (date-format.markdown)',
    "echo(date_format('2017-01-05 17:04:05.084512', 'D DD Do d dd ddd dddd DDD DDDD E H HH h hh k m mm a A s ss S SS SSS SSSSSS M MM MMM MMMM Mo Q W X x Y YY YYYY Z ZZ z [at] \\\\h'))",
    ['5 05 5th 4 Th Thu Thursday 5 005 4 17 17 5 05 17 4 04 pm PM 5 05 0 08 084 084512 1 01 Jan January 1st 1 1 1483635845 1483635845084 2017 17 2017 +00:00 +0000 UTC at h'],
  ],
  [
    'date_to_array',
    "dump(date_to_array('2008-07-05T18:26:25.324542Z'))",
    ['["year": 2008, "month": 7, "day": 5, "dayOfWeek": 6, "dayOfYear": 187, "hour": 18, "minute": 26, "second": 25, "micro": 324542, "timestamp": 1215282385, "formatted": "2008-07-05 18:26:25", "timezone": "Z"]'],
  ],
  [
    'date_interval',
    "dump(date_interval('2008-07-16T23:13:26.234212Z', '2008-07-05T18:26:25.324542Z'))\ndump(date_interval('2008-07-16T23:13:26.234212Z', '2008-07-05T18:26:25.324542Z', '%d days, %h hours, %i minutes'))\ndump(date_interval('2024-01-02T03:03:05Z'))",
    ['-967620', '"11 days, 4 hours, 47 minutes"', '60'],
  ],
  [
    'date_interval_human',
    "dump(date_interval_human('2008-07-16T23:13:26.234212Z', '2008-07-05T18:26:25.324542Z'))\ndump(date_interval_human('2008-07-16T23:13:26.234212Z', '2008-07-05T18:26:25.324542Z', 'es'))\ndump(date_interval_human('2024-01-02T01:00:00Z'))",
    ['"1 week after"', '"1 semana después"', '"2 hours ago"'],
  ],
];

describe('documented functions', () => {
  it.each(CASES)('%s', async (_name, src, expected) => {
    expect(await output(src)).toEqual(expected);
  });
});
