// examples.markdown, each script as the docs give it (URLs pointed at a local server), with the
// results the docs describe.
import { generateKeyPairSync, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock, fetchHttpClient, memoryGlobals } from '@capture/sdk/testing';
import { autoJson } from '../../text/src/auto-json.js';
import { run } from './helpers.js';
import { localServer, type LocalServer } from './local-server.js';

let server: LocalServer;
const http = { http: fetchHttpClient };

beforeAll(async () => {
  server = await localServer((req) => {
    if (req.url === '/oauth/token') return { body: JSON.stringify({ access_token: 'tok-123' }), headers: { 'content-type': 'application/json' } };
    if (req.url.startsWith('/ws1/')) return { status: 200, body: JSON.stringify({ id: 77 }) };
    return { body: 'ok' };
  });
});

afterAll(async () => {
  await server.close();
});

const at = (script: string) =>
  script.replaceAll('https://account-d.docusign.com', server.url).replaceAll('https://example.com', server.url).replaceAll('https://api.telegram.org', server.url).replaceAll('http://example.com', server.url);

describe('examples.markdown', () => {
  const hmacScript = `hmac = hmac(var('request.content'), 'sha256', 'secret');
signature = var('request.header.x-signature', '');

if (hmac != signature) {
    respond('Unauthorized', 401);
}`;

  it('HMAC validation: a wrong signature answers 401 and stops', async () => {
    const r = await run(hmacScript, { request: { content: '{"a":1}', headers: { 'x-signature': ['wrong'] } } });
    expect(r.errors).toEqual([]);
    expect(r.response).toMatchObject({ status: 401, content: 'Unauthorized' });
    expect(r.stopped).toBe(true);
  });

  it('HMAC validation: the right signature goes on', async () => {
    const sig = (await run(`echo(hmac('{"a":1}', 'sha256', 'secret'))`)).output[0];
    const r = await run(hmacScript, { request: { content: '{"a":1}', headers: { 'x-signature': [sig] } } });
    expect(r.errors).toEqual([]);
    expect(r.stopped).toBe(false);
    expect(r.response.status).toBe(200);
  });

  it('JWT: signs an RS256 token and posts it form-encoded', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const script = at(`private_key = '${pem.trim()}';

header = json_encode([
    'alg': 'RS256',
    'typ': 'JWT'
])

currentTimestamp = now().date_format('X').to_number()

body = json_encode([
    "iss": "00000000-0000-0000-0000-000000000000",
    "sub": "00000000-0000-0000-0000-000000000000",
    "aud": "account-d.docusign.com",
    "iat": currentTimestamp,
    "exp": currentTimestamp + 6000,
    "scope": "impersonation signature"
])

token = base64url_encode(header) + "." + base64url_encode(body)
signature = base64url_encode(sign(token, private_key, 'sha256'))
jwt = token + "." + signature

content = query([
    'grant_type': 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    'assertion': jwt
])
headers = ['Content-Type: application/x-www-form-urlencoded']
response = request('https://account-d.docusign.com/oauth/token', content, 'POST', headers)

if (response['status'] != 200) {
    echo('Could not get token: ' + response['content'])
    stop()
}

response_json = json_decode(response['content'])
echo('Got access token: ' + response_json['access_token'])`);
    const before = server.received.length;
    const r = await run(script, { services: http });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['Got access token: tok-123']);
    const sent = server.received[before];
    expect(sent.method).toBe('POST');
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(sent.body.toString());
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const [h, b, s] = form.get('assertion')!.split('.');
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(b, 'base64url').toString())).toMatchObject({ iat: 1704164645, exp: 1704170645 });
    expect(verify('sha256', Buffer.from(`${h}.${b}`), publicKey, Buffer.from(s, 'base64url'))).toBe(true);
  });

  it('Convert a date: overwrites $mydate$ for later actions', async () => {
    const r = await run(
      `input = var('$mydate$')

output = date_format(input, 'YYYY.MM.DD HH:mm')

set('$mydate$', output)`,
      { vars: { mydate: '2021-07-26T16:23:50+03:00' } },
    );
    expect(r.errors).toEqual([]);
    expect(r.vars.mydate).toBe('2021.07.26 16:23');
  });

  it('Request counter: counts in Global Variables and reports after 10 minutes', async () => {
    const script = at(`period = 600 // 10 minutes in seconds
currentPeriod = var('current_period', now())
counter = var('counter', 0).to_number()

currentPeriodSecs = date_interval(currentPeriod)

if (currentPeriodSecs < period) {
    counter = counter + 1
    store('counter', counter)
} else {
    // Above 10 minutes, reset and send request
    store('counter', 0)
    store('current_period', now())
    request(
        'https://example.com/14fea227-60ab-4291-b679-12b8c104c78e', 
        json_encode([
            "counter": counter,
            "timestamp": now(),
        ]),
        'POST'
    )
}

echo('count : {}'.format(counter))
echo('period: {}'.format(currentPeriodSecs))`);
    const globals = memoryGlobals({ current_period: '2024-01-02T03:00:00.000000Z' });
    const clock = fakeClock();
    const first = await run(script, { services: { ...http, globals, clock } });
    expect(first.errors).toEqual([]);
    expect(first.output).toEqual(['count : 1', 'period: 245']);
    const second = await run(script, { services: { ...http, globals, clock } });
    expect(second.output).toEqual(['count : 2', 'period: 245']);
    clock.advance(600_000);
    const before = server.received.length;
    const third = await run(script, { services: { ...http, globals, clock } });
    expect(third.output).toEqual(['count : 2', 'period: 845']);
    expect(globals.values.get('counter')).toBe('0');
    expect(globals.values.get('current_period')).toBe('2024-01-02T03:14:05.000000Z');
    expect(JSON.parse(server.received[before].body.toString())).toEqual({ counter: 2, timestamp: '2024-01-02T03:14:05.000000Z' });
  });

  it('Parse and loop through JSON: gives the documented output', async () => {
    const script = `// Define input as a JSON string
json = '{
    "items": [
        {
            "first_name": "Jack",
            "group_ids": [346, 46456, 23423],
            "fields": [
              { "id": 45698, "name": "birthday", "value": "1990-01-01" },
              { "id": 344, "name": "car", "value": "BMW M2" }
            ]
        },
        {
            "first_name": "Jim",
            "group_ids": [3456, 43546, 234234, 456456],
            "fields": [
              { "id": 45698, "name": "birthday", "value": "1987-05-01" },
              { "id": 344, "name": "car", "value": "Toyota Corolla" },
              { "id": 248, "name": "nickname", "value": "Jimmie" }
            ]
        }
    ]
}'

// Decode to array
data = json_decode(json)

// Define an array of valid groups
valid_groups = [43546, 999999]

// Loop over items
for (item in data['items']) {
    // Per default, item does not have a valid group.
    has_valid_group = false

    // Loop through each group ID in the data
    for (group_id in item['group_ids']) {
        // Does the "valid_groups" array contain this group ID?
        if (valid_groups.contains(group_id)) {
            has_valid_group = true
        }
    }

    if (has_valid_group) {
        echo(item['first_name'] + ' did not have a valid group.') 
    } else {
        echo(item['first_name'] + ' has a valid group.') 
    }
    
    // Extract "fields" into an array of key => value
    fields = []
    for (field in item['fields']) {
      fields[field['name']] = field['value']
    }
    
    echo(json_encode(fields))
}`;
    const r = await run(script);
    expect(r.errors).toEqual([]);
    expect(r.output.join('\n')).toBe(`Jack has a valid group.
{
    "birthday": "1990-01-01",
    "car": "BMW M2"
}
Jim did not have a valid group.
{
    "birthday": "1987-05-01",
    "car": "Toyota Corolla",
    "nickname": "Jimmie"
}`);
  });

  it('Loop through and compare items: picks token2', async () => {
    const r = await run(`location = 'test ABC example';

compares = [
  '123': 'token1',
  'ABC': 'token2',
  'DEF': 'token3',
]

token = ''; // Default value

for (compare in array_keys(compares)) {
    if (location.contains(compare)) {
        token = compares[compare]
    }
}

dump(token) // token2`);
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['"token2"']);
  });

  it('Submit request with escaped JSON: posts the JSON with the HTML in it', async () => {
    const script = at(`html_template = '<b><u>New {} lead</u></b><br>
<br>
Location: {}<br>
Message from customer:<br>
<div style="background:#CCC">{}</div>'

html_message = string_format(
    html_template,
    var('lead_type'),
    var('location'),
    var('message')
)

payload = json_encode([
    'lead': [
        'firstname': var('firstname'),
        'lastname': var('lastname'),
        'html': html_message
    ]
])


request(
  'https://example.com/leads',
   payload,
   'POST',
   ['Content-Type: application/json']
)`);
    const before = server.received.length;
    const r = await run(script, { services: http, vars: { lead_type: 'hot', location: 'Oslo', message: 'Say "hi"', firstname: 'Ann', lastname: 'Lee' } });
    expect(r.errors).toEqual([]);
    const sent = server.received[before];
    expect(sent.url).toBe('/leads');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body.toString())).toEqual({
      lead: { firstname: 'Ann', lastname: 'Lee', html: '<b><u>New hot lead</u></b><br>\n<br>\nLocation: Oslo<br>\nMessage from customer:<br>\n<div style="background:#CCC">Say "hi"</div>' },
    });
  });

  it('Validate request: answers 200 or 500 by the hash', async () => {
    const script = `verification_secret = "JHRlc3RTY3JpcHRTZWNyZXQ"
verification_challenge = var("request.header.x-request-verification")
verification_result = hash(var("request.content") + verification_secret, "sha256")

if (!verification_challenge or verification_challenge != verification_result) {
    respond("Invalid request", 500)
}

respond("Successful request", 200)`;
    const bad = await run(script, { request: { content: 'body' } });
    expect(bad.response).toMatchObject({ status: 500, content: 'Invalid request' });
    const good = (await run(`echo(hash("bodyJHRlc3RTY3JpcHRTZWNyZXQ", "sha256"))`)).output[0];
    const ok = await run(script, { request: { content: 'body', headers: { 'x-request-verification': [good] } } });
    expect(ok.errors).toEqual([]);
    expect(ok.response).toMatchObject({ status: 200, content: 'Successful request' });
  });

  it('Send a x-www-form-urlencoded request', async () => {
    const before = server.received.length;
    const r = await run(
      at(`content = query([
    'country': 'Curaçao', 
    'population': 158665
])
headers = ['Content-Type: application/x-www-form-urlencoded'];
response = request('https://example.com', content, 'POST', headers);
dump(response['status'], response['content'])`),
      { services: http },
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['200\n"ok"']);
    expect(server.received[before].body.toString()).toBe('country=Cura%C3%A7ao&population=158665');
  });

  it('Transform and resend: invalid input answers the JSON error; the script stops at its undefined variable', async () => {
    const script = at(`ws1_api_key = var('WS1_KEY')
ws2_user_token = var('WS1_USER_TOKEN')

function error (message) {
    echo('Error: {}'.format(message))
    respond(json_encode(['error': message]), 500)
}

orig_req = json_decode(var('request.content'))

if (!orig_req) {
  error('Invalid request')
}

ws1_url = 'https://example.com/ws1/3.0/lists/{}/interest-categories/{}/interests'.format(
  orig_req['listId'],
  orig_req['groupId']
)

ws1_content = [
  'first_name': orig_req['firstName'],
  'last_name': orig_req['lastName']
]
ws1_response = request(
    ws1_url,
    json_encode(ws1_content),
    'POST',
    ['Authorization: Basic ' + ws1_api_key]
)

if (ws1_response['status'] != 200) {
  echo(ws1_response['content']);
  error('Invalid response from WS1')
}

ws1_response_id = json_decode(ws1_response)['id']

ws2_content = '
  <qdbapi>
    <usertoken>{}</usertoken>
    <listid>{}</listid>
    <field fid="7">{}</field>
  </qdbapi>'.format(ws2_user_token, orig_req['listId'], ws1_group_id)
`);
    const invalid = await run(script, { services: http, request: { content: 'not json' } });
    expect(invalid.output).toEqual(['Error: Invalid request']);
    expect(invalid.response).toMatchObject({ status: 500, content: '{\n    "error": "Invalid request"\n}' });

    const before = server.received.length;
    const valid = await run(script, { services: http, request: { content: '{"listId": 5, "groupId": 6, "firstName": "A", "lastName": "B"}' }, vars: { WS1_KEY: 'k' } });
    expect(server.received[before]).toMatchObject({ url: '/ws1/3.0/lists/5/interest-categories/6/interests', method: 'POST' });
    expect(server.received[before].headers.authorization).toBe('Basic k');
    // The docs' script uses ws1_group_id, which it never sets.
    expect(valid.errors).toEqual(['Error at line 43:57: Undefined variable "ws1_group_id"']);
  });

  it('Telegram bot: answers "You\'re ..." with a regex match', async () => {
    const script = at(`token = 'TELEGRAM_TOKEN';

content = json_decode(var('$request.content$'));
msg = content['message']['text'];
response = "Couldn't come up with anything witty.";

if (msg == "How's it going?") {
    response = 'Pretty good.'
}

if (msg == r"You're (.*)") {
    match = regex_extract_first(r"You're (.*)", msg)
    response = 'No, YOU are {}'.format(match);
}

if (msg == "/start") {
    response = "Hi! I'm WebhookBot."
}

url = 'https://api.telegram.org/bot{}/sendMessage'.format(token)

json = [
    'chat_id': content['message']['chat']['id'],
    'text': response
]

request(url, json_encode(json), 'POST');`);
    const before = server.received.length;
    const r = await run(script, { services: http, request: { content: JSON.stringify({ message: { text: "You're a bot", chat: { id: 34534673234 } } }) } });
    expect(r.errors).toEqual([]);
    expect(server.received[before].url).toBe('/botTELEGRAM_TOKEN/sendMessage');
    expect(JSON.parse(server.received[before].body.toString())).toEqual({ chat_id: 34534673234, text: 'No, YOU are a bot' });
  });

  it('Building HTML content: picks the alert class by status (with the variables the docs assume)', async () => {
    const script = at(`status = 'Degraded Performance'; message = 'Slow'; state = 'Investigating'; component = 'API'; token = 'abc'
function alert_class() {
    if (status == 'Operational') { return 'success'; }
    if (status == 'Degraded Performance') { return 'warning'; }
    if (string_contains(status, 'Disruption')) { return 'danger'; }
}

template = '
  <div class="alert alert-{}">
    <h2 class="alert-title">{} - {}</h2>
    <p>
      {}<br />
      State: {}<br />
      Component affected: {}
    </p>
    <p>{}</p>
  </div>';

postbody = string_format(
  template,
  alert_class(),
  message,
  state,
  component,
  to_date('now').date_format('LLLL')
)
  
json = [
  'alert': [
    'title': '{} - {}'.format(component, state),
    'body': postbody,
    'draft': false,
    'types': ['alert']
  ],
]

request(
  'http://example.com/alerts',
  json_encode(json),
  'POST',
  [
    'Content-Type: application/json',
    'Authorization: Basic {}'.format(token)
  ]
)`);
    const before = server.received.length;
    const r = await run(script, { services: http });
    expect(r.errors).toEqual([]);
    const sent = JSON.parse(server.received[before].body.toString());
    expect(sent.alert).toMatchObject({ title: 'API - Investigating', draft: false, types: ['alert'] });
    expect(sent.alert.body).toContain('<div class="alert alert-warning">');
    // The docs' template has seven {} and the call fills five: the rest stay as written.
    expect(sent.alert.body).toContain('<h2 class="alert-title">Slow - Investigating</h2>');
    expect(sent.alert.body).toContain('Tuesday, January 2, 2024 3:04 AM<br />');
    expect(server.received[before].headers.authorization).toBe('Basic abc');
  });

  const csvScript = `url = var('request.url')
set_header('content-type', 'text/html');

// Display file upload form and exit if HTTP method is not POST
if (var('request.method') != 'POST') {
    respond('
        <html>
            <head><title>Upload CSV</title></head>
            <body>
                <h1>Upload CSV</h1>
                <form action="{}" method="POST" enctype="multipart/form-data">
                    <input type="file" name="file"/>
                    <button type="submit">Upload</button>
                </form>
            </body>
        </html>
    '.format(url))
}

// Use a comma as delimiter and treat first row (0) as header row
array = csv_to_array(var('request.file.file.content'), ',', 0)

// If CSV can't be parsed, or there's less than 2 rows, fail
if (!array or array.length() < 2) {
    respond('
        <h1>Could not parse CSV</h1>
        <a href="{}">Upload again</a>
    '.format(url));
}

// Display the parsed CSV in JSON format 
respond('
    <h1>Upload successful</h1>
    <pre>{}</pre>
    <p>
        <a href="{}">Upload again</a>
    </p>
'.format(json_encode(array), url))`;

  it('Uploading and parsing CSV: shows the form on GET', async () => {
    const r = await run(csvScript, { request: { method: 'GET' } });
    expect(r.errors).toEqual([]);
    expect(r.response.contentType).toBe('text/html');
    expect(r.response.content).toContain('<form action="http://localhost:8084/11111111-1111-4111-8111-111111111111" method="POST"');
  });

  it('Uploading and parsing CSV: parses the uploaded file', async () => {
    const file = { id: 'f1', name: 'file', filename: 'a.csv', size: 20, content_type: 'text/csv', content: Buffer.from('name,age\nAnn,30\nBo,40\n') };
    const r = await run(csvScript, { request: { method: 'POST', files: [file] } });
    expect(r.errors).toEqual([]);
    expect(r.response.content).toContain('<h1>Upload successful</h1>');
    expect(r.response.content).toContain('"name": "Bo"');
    const short = await run(csvScript, { request: { method: 'POST', files: [{ ...file, content: Buffer.from('name\nAnn\n') }] } });
    expect(short.response.content).toContain('Could not parse CSV');
  });

  it('Converting JSON to CSV: the clean-up script sends the DELETE with the API key', async () => {
    const before = server.received.length;
    const r = await run(
      `set('api_key', '00000000-0000-0000-0000-000000000000');
set('token_id', '10000000-0000-0000-0000-000000000000');
set('from', '2024-01-01 00:00:00'); set('now', '2024-01-02 00:00:00');
api_url = string_format(
  '${server.url}/token/{}/requests?query=method:POST AND created_at:["{}" TO "{}"]',
  get('token_id'),
  get('from'),
  get('now')
)

res = http(
  api_url,
  [
    'method': 'DELETE',
    'headers': ['Api-Key: ' + get('api_key')]
  ]
)
echo('HTTP Status: %s'.format(res['status']))`,
      { services: http },
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['HTTP Status: 200']);
    const sent = server.received[before];
    expect(sent.method).toBe('DELETE');
    expect(sent.headers['api-key']).toBe('00000000-0000-0000-0000-000000000000');
    expect(decodeURIComponent(sent.url)).toBe('/token/10000000-0000-0000-0000-000000000000/requests?query=method:POST AND created_at:["2024-01-01 00:00:00" TO "2024-01-02 00:00:00"]');
  });

  it('Converting JSON to CSV: action() flattens each row with auto_json; rows may lack columns', async () => {
    const script = `json_data = [['name': 'Ada', 'address': ['city': 'London']], ['name': 'Bo "B"', 'age': 7]]
count = 0
function csv_escape(input) {
    if (input.is_null()) { return ''; }
    return '"' + string_replace(input.to_string(), '"', '""') + '"';
}
csv_columns = []
csv_values = [];
for (row in json_data) {
    csv_row = [];
    extract = action('auto_json', ['source': json_encode(row)])
    for (var_name in extract.keys()) {
        if (var_name.contains('json.')) {
            var_name_pretty = var_name.replace('json.', '')
            csv_columns[var_name_pretty] = true;
            csv_row[var_name_pretty] = csv_escape(extract[var_name])
        }
    }
    csv_values.push(csv_row)
}
csv_columns = csv_columns.keys().sort();
csv = csv_columns.join(',')
for (csv_val in csv_values) {
    csv_row = [];
    for (csv_column_name in csv_columns) {
        if (csv_val.has(csv_column_name)) {
            csv_row[csv_column_name] = csv_val[csv_column_name];
        } else {
            csv_row[csv_column_name] = '';
        }
    }
    csv = csv + "\\n" + csv_row.join(',')
    count = count + 1;
}
echo('Created CSV contents (%d rows)'.format(count))
set('csv', csv)`;
    const r = await run(script, { actions: [autoJson] });
    expect(r.errors).toEqual([]);
    expect(r.output).toContain('Created CSV contents (2 rows)');
    expect(r.vars.csv).toBe('address.city,age,name\n"London",,"Ada"\n,"7","Bo ""B"""');
  });

  it('About WebhookScript: the product price example', async () => {
    const script = `products = [
  'apple':     ['price': 10],
  'blueberry': ['price': 1],
  'cake':      ['price': 550]
]

shouldAddVat = var('request.query.vat');
selectedProduct = var('request.query.product');

if (!selectedProduct) {
    respond('Please select a product!', 500)
}

price = products[selectedProduct]['price'];

if (shouldAddVat == 1) {
    price = price * 1.25;
}

respond(
    'Your price is {}'.format(price),
    200
);`;
    const none = await run(script);
    expect(none.response).toMatchObject({ status: 500, content: 'Please select a product!' });
    const cake = await run(script, { request: { query: { product: 'cake', vat: '1' } } });
    expect(cake.errors).toEqual([]);
    expect(cake.response).toMatchObject({ status: 200, content: 'Your price is 687.5' });
  });
});
