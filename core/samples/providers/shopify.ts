// Shopify: webhook topics in the shapes of Shopify's Admin REST API reference (orders, products,
// customers, app/uninstalled), with the X-Shopify-* headers, signed as Shopify signs:
// `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>` keyed by the app's client secret.
import { randomInt, randomUUID } from 'node:crypto';
import { hmac, jsonBody, mergeOverrides, type SampleEvent, type SampleProvider } from '../types.js';

const SHOP = 'example-store.myshopify.com';
const API_VERSION = '2025-01';

const id = () => randomInt(1_000_000_000, 9_999_999_999) * 100 + randomInt(0, 99);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '-00:00');

const address = {
  first_name: 'Jenny',
  last_name: 'Rosen',
  address1: "151 O'Connor Street",
  address2: null,
  city: 'Ottawa',
  province: 'Ontario',
  country: 'Canada',
  zip: 'K2P 2L8',
  phone: '555-625-1199',
  province_code: 'ON',
  country_code: 'CA',
};

function customer(now: number) {
  return {
    id: id(),
    email: 'jenny.rosen@example.com',
    created_at: iso(now),
    updated_at: iso(now),
    first_name: 'Jenny',
    last_name: 'Rosen',
    state: 'enabled',
    note: null,
    verified_email: true,
    tags: '',
    currency: 'CAD',
    phone: null,
    addresses: [{ ...address, id: id(), default: true }],
    default_address: { ...address, id: id(), default: true },
    admin_graphql_api_id: `gid://shopify/Customer/${id()}`,
  };
}

function product(now: number) {
  const productId = id();
  return {
    id: productId,
    title: 'Organic Cotton T-Shirt',
    body_html: '<p>Soft, breathable, made to last.</p>',
    vendor: 'Example Store',
    product_type: 'Shirts',
    handle: 'organic-cotton-t-shirt',
    created_at: iso(now - 86_400_000),
    updated_at: iso(now),
    published_at: iso(now - 86_400_000),
    status: 'active',
    tags: 'cotton, summer',
    variants: [
      { id: id(), product_id: productId, title: 'Small', price: '25.00', sku: 'TEE-S', position: 1, inventory_policy: 'deny', option1: 'Small', inventory_quantity: 12, requires_shipping: true, taxable: true },
      { id: id(), product_id: productId, title: 'Medium', price: '25.00', sku: 'TEE-M', position: 2, inventory_policy: 'deny', option1: 'Medium', inventory_quantity: 7, requires_shipping: true, taxable: true },
    ],
    options: [{ id: id(), product_id: productId, name: 'Size', position: 1, values: ['Small', 'Medium'] }],
    admin_graphql_api_id: `gid://shopify/Product/${productId}`,
  };
}

function order(now: number) {
  const orderId = id();
  return {
    id: orderId,
    admin_graphql_api_id: `gid://shopify/Order/${orderId}`,
    name: '#1001',
    order_number: 1001,
    email: 'jenny.rosen@example.com',
    created_at: iso(now),
    updated_at: iso(now),
    processed_at: iso(now),
    currency: 'CAD',
    presentment_currency: 'CAD',
    financial_status: 'paid',
    fulfillment_status: null,
    confirmed: true,
    test: true,
    subtotal_price: '50.00',
    total_tax: '6.50',
    total_price: '56.50',
    total_discounts: '0.00',
    total_weight: 400,
    taxes_included: false,
    customer: customer(now),
    billing_address: address,
    shipping_address: address,
    line_items: [
      {
        id: id(),
        product_id: id(),
        variant_id: id(),
        title: 'Organic Cotton T-Shirt',
        variant_title: 'Small',
        sku: 'TEE-S',
        quantity: 2,
        price: '25.00',
        requires_shipping: true,
        taxable: true,
        fulfillment_status: null,
      },
    ],
    shipping_lines: [{ id: id(), title: 'Standard', price: '0.00', code: 'Standard', source: 'shopify' }],
    tags: '',
    note: null,
  };
}

const TOPICS: Array<{ topic: string; description: string; payload: (now: number) => Record<string, unknown> }> = [
  { topic: 'orders/create', description: 'An order was placed.', payload: order },
  { topic: 'orders/paid', description: "An order's payment was completed.", payload: order },
  { topic: 'products/update', description: 'A product was changed.', payload: product },
  { topic: 'customers/create', description: 'A customer account was created.', payload: customer },
  {
    topic: 'app/uninstalled',
    description: 'The app was uninstalled from the shop.',
    payload: () => ({ id: id(), name: 'Example Store', email: 'owner@example.com', domain: 'example.com', myshopify_domain: SHOP, plan_name: 'basic', country_code: 'CA', currency: 'CAD' }),
  },
];

export const shopify: SampleProvider = {
  id: 'shopify',
  name: 'Shopify',
  source: "Written for this project from Shopify's Admin REST API reference (webhook topics and resources)",
  licence: 'MIT (this project)',
  preset: 'shopify',
  secretRequired: true,
  events: (): SampleEvent[] => TOPICS.map((t) => ({ event: t.topic, description: t.description, formats: ['json'] })),
  deliver({ event, secret, now, overrides }) {
    const found = TOPICS.find((t) => t.topic === event);
    if (!found) return null;
    const body = jsonBody(mergeOverrides(found.payload(now), overrides));
    return {
      method: 'POST',
      headers: {
        Accept: '*/*',
        'Content-Type': 'application/json',
        'User-Agent': 'Shopify-Captain-Hook',
        'X-Shopify-Topic': found.topic,
        'X-Shopify-Hmac-Sha256': hmac('sha256', secret ?? '', body).toString('base64'),
        'X-Shopify-Shop-Domain': SHOP,
        'X-Shopify-API-Version': API_VERSION,
        'X-Shopify-Webhook-Id': randomUUID(),
        'X-Shopify-Event-Id': randomUUID(),
        'X-Shopify-Triggered-At': new Date(now).toISOString(),
      },
      body,
    };
  },
};
