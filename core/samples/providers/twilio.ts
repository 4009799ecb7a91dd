// Twilio: an incoming SMS, an incoming voice call and a message status callback, form-encoded with
// the parameters Twilio's webhook documentation lists, signed as Twilio signs: `X-Twilio-Signature:
// <base64 HMAC-SHA1 of the URL followed by each parameter's name and value, sorted by name>`, keyed
// by the account's auth token. The URL is the one the delivery is sent to.
import { randomUUID } from 'node:crypto';
import { formBody, formFields, hmac, randomId, type SampleEvent, type SampleProvider } from '../types.js';

const ACCOUNT = 'AC' + '0123456789abcdef0123456789abcdef';
const sid = (prefix: string) => randomId(prefix, 32, '0123456789abcdef');

const to = { To: '+15017122661', ToCity: 'SAN FRANCISCO', ToState: 'CA', ToZip: '94105', ToCountry: 'US' };
const from = { From: '+15558675310', FromCity: 'OAKLAND', FromState: 'CA', FromZip: '94612', FromCountry: 'US' };

const EVENTS: Array<{ event: string; description: string; fields: () => Record<string, string> }> = [
  {
    event: 'sms',
    description: 'An incoming SMS to one of your numbers (Messaging webhook).',
    fields: () => {
      const message = sid('SM');
      return {
        ...to,
        SmsMessageSid: message,
        NumMedia: '0',
        SmsSid: message,
        SmsStatus: 'received',
        Body: 'Is my order on its way?',
        NumSegments: '1',
        MessageSid: message,
        AccountSid: ACCOUNT,
        ...from,
        ApiVersion: '2010-04-01',
      };
    },
  },
  {
    event: 'voice',
    description: 'An incoming call to one of your numbers (Voice webhook; answer with TwiML).',
    fields: () => ({
      AccountSid: ACCOUNT,
      ApiVersion: '2010-04-01',
      CallSid: sid('CA'),
      CallStatus: 'ringing',
      CallToken: randomId('', 40, '0123456789abcdef'),
      Direction: 'inbound',
      Called: to.To,
      CalledCity: to.ToCity,
      CalledCountry: to.ToCountry,
      CalledState: to.ToState,
      CalledZip: to.ToZip,
      Caller: from.From,
      CallerCity: from.FromCity,
      CallerCountry: from.FromCountry,
      CallerState: from.FromState,
      CallerZip: from.FromZip,
      ...from,
      ...to,
      StirVerstat: 'TN-Validation-Passed-A',
    }),
  },
  {
    event: 'message_status',
    description: 'A status callback for a message you sent (delivered).',
    fields: () => {
      const message = sid('SM');
      return {
        SmsSid: message,
        SmsStatus: 'delivered',
        MessageStatus: 'delivered',
        To: from.From,
        MessageSid: message,
        AccountSid: ACCOUNT,
        From: to.To,
        ApiVersion: '2010-04-01',
        ChannelToAddress: '+1555867XXXX',
        RawDlrDoneDate: '2501071205',
      };
    },
  },
];

/** Twilio's signature of a form post to `url`. */
export function twilioSignature(authToken: string, url: string, fields: Record<string, string>): string {
  const signed =
    url +
    Object.keys(fields)
      .sort()
      .map((k) => k + fields[k])
      .join('');
  return hmac('sha1', authToken, signed).toString('base64');
}

export const twilio: SampleProvider = {
  id: 'twilio',
  name: 'Twilio',
  source: "Written for this project from Twilio's webhook documentation (Messaging and Voice request parameters)",
  licence: 'MIT (this project)',
  preset: 'twilio',
  secretRequired: true,
  events: (): SampleEvent[] => EVENTS.map((e) => ({ event: e.event, description: e.description, formats: ['form'] })),
  deliver({ event, secret, url, overrides }) {
    const found = EVENTS.find((e) => e.event === event);
    if (!found) return null;
    const fields = formFields(found.fields(), overrides);
    return {
      method: 'POST',
      headers: {
        Accept: '*/*',
        'Content-Type': 'application/x-www-form-urlencoded',
        'User-Agent': 'TwilioProxy/1.1',
        'I-Twilio-Idempotency-Token': randomUUID(),
        'X-Home-Region': 'us1',
        'X-Twilio-Signature': twilioSignature(secret ?? '', url, fields),
      },
      body: formBody(fields),
    };
  },
};
