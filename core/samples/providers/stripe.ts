// Stripe: events of the common types, in the shapes Stripe documents for its Event object and the
// objects it carries (written here, test mode, fresh ids and times), signed as Stripe signs:
// `Stripe-Signature: t=<s>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed by the whole endpoint secret.
import { randomUUID } from 'node:crypto';
import { hmac, mergeOverrides, randomId, seconds, type SampleEvent, type SampleProvider } from '../types.js';

const API_VERSION = '2024-06-20';

type Ids = { customer: string; paymentIntent: string; charge: string; paymentMethod: string; subscription: string; invoice: string; price: string; product: string };

function freshIds(): Ids {
  return {
    customer: randomId('cus_', 14),
    paymentIntent: randomId('pi_', 24),
    charge: randomId('ch_', 24),
    paymentMethod: randomId('pm_', 24),
    subscription: randomId('sub_', 24),
    invoice: randomId('in_', 24),
    price: randomId('price_', 24),
    product: randomId('prod_', 14),
  };
}

const card = { brand: 'visa', country: 'US', exp_month: 12, exp_year: 2034, funding: 'credit', last4: '4242' };
const billing = {
  address: { city: 'South San Francisco', country: 'US', line1: '354 Oyster Point Blvd', line2: null, postal_code: '94080', state: 'CA' },
  email: 'jenny.rosen@example.com',
  name: 'Jenny Rosen',
  phone: null,
};

function customer(ids: Ids, t: number) {
  return {
    id: ids.customer,
    object: 'customer',
    address: null,
    balance: 0,
    created: t,
    currency: 'usd',
    default_source: null,
    delinquent: false,
    description: null,
    email: 'jenny.rosen@example.com',
    invoice_prefix: 'A1B2C3D4',
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: {},
    name: 'Jenny Rosen',
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

function charge(ids: Ids, t: number, refunded = false) {
  return {
    id: ids.charge,
    object: 'charge',
    amount: 2000,
    amount_captured: 2000,
    amount_refunded: refunded ? 2000 : 0,
    balance_transaction: randomId('txn_', 24),
    billing_details: billing,
    captured: true,
    created: t,
    currency: 'usd',
    customer: ids.customer,
    description: null,
    disputed: false,
    failure_code: null,
    failure_message: null,
    livemode: false,
    metadata: {},
    outcome: { network_status: 'approved_by_network', reason: null, risk_level: 'normal', risk_score: 32, seller_message: 'Payment complete.', type: 'authorized' },
    paid: true,
    payment_intent: ids.paymentIntent,
    payment_method: ids.paymentMethod,
    payment_method_details: { card: { ...card, checks: { address_line1_check: 'pass', address_postal_code_check: 'pass', cvc_check: 'pass' }, network: 'visa' }, type: 'card' },
    receipt_email: 'jenny.rosen@example.com',
    receipt_url: `https://pay.stripe.com/receipts/payment/${ids.charge}`,
    refunded,
    status: 'succeeded',
  };
}

function paymentIntent(ids: Ids, t: number, failed = false) {
  return {
    id: ids.paymentIntent,
    object: 'payment_intent',
    amount: 2000,
    amount_capturable: 0,
    amount_received: failed ? 0 : 2000,
    automatic_payment_methods: { allow_redirects: 'always', enabled: true },
    canceled_at: null,
    cancellation_reason: null,
    capture_method: 'automatic',
    client_secret: `${ids.paymentIntent}_secret_${randomId('', 25)}`,
    confirmation_method: 'automatic',
    created: t,
    currency: 'usd',
    customer: ids.customer,
    description: null,
    last_payment_error: failed
      ? { code: 'card_declined', decline_code: 'insufficient_funds', doc_url: 'https://stripe.com/docs/error-codes/card-declined', message: 'Your card has insufficient funds.', type: 'card_error' }
      : null,
    latest_charge: failed ? null : ids.charge,
    livemode: false,
    metadata: { order_id: '6735' },
    payment_method: failed ? null : ids.paymentMethod,
    payment_method_types: ['card'],
    receipt_email: null,
    status: failed ? 'requires_payment_method' : 'succeeded',
  };
}

function subscription(ids: Ids, t: number, status: 'active' | 'canceled') {
  const day = 86_400;
  return {
    id: ids.subscription,
    object: 'subscription',
    billing_cycle_anchor: t,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: status === 'canceled' ? t : null,
    collection_method: 'charge_automatically',
    created: t - (status === 'canceled' ? 30 * day : 0),
    currency: 'usd',
    current_period_end: t + 30 * day,
    current_period_start: t,
    customer: ids.customer,
    default_payment_method: ids.paymentMethod,
    ended_at: status === 'canceled' ? t : null,
    items: {
      object: 'list',
      data: [{ id: randomId('si_', 14), object: 'subscription_item', created: t, price: price(ids, t), quantity: 1, subscription: ids.subscription }],
      has_more: false,
      url: `/v1/subscription_items?subscription=${ids.subscription}`,
    },
    latest_invoice: ids.invoice,
    livemode: false,
    metadata: {},
    start_date: t,
    status,
    trial_end: null,
    trial_start: null,
  };
}

function price(ids: Ids, t: number) {
  return {
    id: ids.price,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created: t,
    currency: 'usd',
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: 'Pro monthly',
    product: ids.product,
    recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' },
    type: 'recurring',
    unit_amount: 2000,
  };
}

function invoice(ids: Ids, t: number, paid: boolean) {
  return {
    id: ids.invoice,
    object: 'invoice',
    account_country: 'US',
    amount_due: 2000,
    amount_paid: paid ? 2000 : 0,
    amount_remaining: paid ? 0 : 2000,
    attempt_count: 1,
    attempted: true,
    billing_reason: 'subscription_cycle',
    collection_method: 'charge_automatically',
    created: t,
    currency: 'usd',
    customer: ids.customer,
    customer_email: 'jenny.rosen@example.com',
    hosted_invoice_url: `https://invoice.stripe.com/i/acct_1032D82eZvKYlo2C/test_${ids.invoice}`,
    invoice_pdf: `https://pay.stripe.com/invoice/acct_1032D82eZvKYlo2C/test_${ids.invoice}/pdf`,
    lines: {
      object: 'list',
      data: [
        {
          id: randomId('il_', 24),
          object: 'line_item',
          amount: 2000,
          currency: 'usd',
          description: '1 × Pro (at $20.00 / month)',
          period: { end: t + 30 * 86_400, start: t },
          price: price(ids, t),
          quantity: 1,
          type: 'subscription',
        },
      ],
      has_more: false,
      url: `/v1/invoices/${ids.invoice}/lines`,
    },
    livemode: false,
    next_payment_attempt: paid ? null : t + 3 * 86_400,
    number: 'A1B2C3D4-0001',
    paid,
    period_end: t,
    period_start: t - 30 * 86_400,
    status: paid ? 'paid' : 'open',
    subscription: ids.subscription,
    subtotal: 2000,
    total: 2000,
  };
}

function checkoutSession(ids: Ids, t: number) {
  const id = randomId('cs_test_', 58);
  return {
    id,
    object: 'checkout.session',
    amount_subtotal: 2000,
    amount_total: 2000,
    cancel_url: 'https://example.com/cancel',
    client_reference_id: null,
    created: t,
    currency: 'usd',
    customer: ids.customer,
    customer_details: { address: billing.address, email: 'jenny.rosen@example.com', name: 'Jenny Rosen', phone: null, tax_exempt: 'none', tax_ids: [] },
    expires_at: t + 86_400,
    livemode: false,
    metadata: {},
    mode: 'payment',
    payment_intent: ids.paymentIntent,
    payment_method_types: ['card'],
    payment_status: 'paid',
    status: 'complete',
    success_url: 'https://example.com/success',
    url: null,
  };
}

/** The catalogue: event type, what it means, and its `data.object` (with `previous_attributes` for updates). */
const EVENTS: Array<{ type: string; description: string; object: (ids: Ids, t: number) => Record<string, unknown>; previous?: Record<string, unknown> }> = [
  { type: 'payment_intent.succeeded', description: 'A PaymentIntent has succeeded.', object: (ids, t) => paymentIntent(ids, t) },
  { type: 'payment_intent.payment_failed', description: 'A payment attempt on a PaymentIntent failed.', object: (ids, t) => paymentIntent(ids, t, true) },
  { type: 'charge.succeeded', description: 'A charge succeeded.', object: (ids, t) => charge(ids, t) },
  { type: 'charge.refunded', description: 'A charge was refunded.', object: (ids, t) => charge(ids, t, true) },
  { type: 'checkout.session.completed', description: 'A Checkout Session was completed.', object: checkoutSession },
  { type: 'customer.created', description: 'A customer was created.', object: customer },
  { type: 'customer.subscription.created', description: 'A customer was signed up for a new plan.', object: (ids, t) => subscription(ids, t, 'active') },
  { type: 'customer.subscription.updated', description: 'A subscription changed (plan, status, renewal).', object: (ids, t) => subscription(ids, t, 'active'), previous: { cancel_at_period_end: true } },
  { type: 'customer.subscription.deleted', description: "A customer's subscription ended.", object: (ids, t) => subscription(ids, t, 'canceled') },
  { type: 'invoice.paid', description: 'An invoice was paid.', object: (ids, t) => invoice(ids, t, true) },
  { type: 'invoice.payment_failed', description: 'An invoice payment attempt failed.', object: (ids, t) => invoice(ids, t, false) },
];

export const stripe: SampleProvider = {
  id: 'stripe',
  name: 'Stripe',
  source: "Written for this project from Stripe's API reference (the Event object and the objects it carries)",
  licence: 'MIT (this project)',
  preset: 'stripe',
  secretRequired: true,
  events: (): SampleEvent[] => EVENTS.map((e) => ({ event: e.type, description: e.description, formats: ['json'] })),
  deliver({ event, secret, now, overrides }) {
    const found = EVENTS.find((e) => e.type === event);
    if (!found) return null;
    const t = seconds(now);
    const data: Record<string, unknown> = { object: found.object(freshIds(), t) };
    if (found.previous) data.previous_attributes = found.previous;
    const payload = mergeOverrides(
      {
        id: randomId('evt_', 24),
        object: 'event',
        api_version: API_VERSION,
        created: t,
        data,
        livemode: false,
        pending_webhooks: 1,
        request: { id: randomId('req_', 14), idempotency_key: randomUUID() },
        type: found.type,
      },
      overrides,
    );
    // Stripe's own serialisation is indented; the signature covers whatever bytes are sent.
    const body = Buffer.from(JSON.stringify(payload, null, 2), 'utf8');
    const signature = hmac('sha256', secret ?? '', Buffer.concat([Buffer.from(`${t}.`), body])).toString('hex');
    return {
      method: 'POST',
      headers: {
        Accept: '*/*; q=0.5, application/xml',
        'Cache-Control': 'no-cache',
        'Content-Type': 'application/json; charset=utf-8',
        'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        'Stripe-Signature': `t=${t},v1=${signature}`,
      },
      body,
    };
  },
};
