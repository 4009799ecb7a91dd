// The Form Builder's HTML: a plain, self-contained form that posts to a capture URL. Every value
// the user typed is escaped, so a label cannot become markup.

export const FIELD_TYPES = ['text', 'email', 'number', 'tel', 'url', 'date', 'textarea', 'select', 'checkbox', 'file', 'hidden'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FormField {
  /** Stable key for the editor's list. */
  key: number;
  label: string;
  name: string;
  type: FieldType;
  required: boolean;
  /** select: one option a line; hidden: its value; others: the placeholder. */
  extra: string;
}

export interface FormSpec {
  title: string;
  action: string;
  submit: string;
  /** Files need multipart; otherwise the browser sends application/x-www-form-urlencoded. */
  fields: FormField[];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** A field name as the form sends it: the label's words, lower case, joined by underscores, unless given. */
export function fieldName(f: Pick<FormField, 'name' | 'label'>, index: number): string {
  const own = f.name.trim();
  if (own) return own;
  const fromLabel = f.label
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return fromLabel || `field_${index + 1}`;
}

export function enctypeOf(spec: FormSpec): 'multipart/form-data' | 'application/x-www-form-urlencoded' {
  return spec.fields.some((f) => f.type === 'file') ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
}

function control(f: FormField, name: string, id: string): string {
  const req = f.required ? ' required' : '';
  const n = esc(name);
  switch (f.type) {
    case 'textarea':
      return `<textarea id="${id}" name="${n}" rows="4"${f.extra ? ` placeholder="${esc(f.extra)}"` : ''}${req}></textarea>`;
    case 'select': {
      const options = f.extra
        .split('\n')
        .map((o) => o.trim())
        .filter(Boolean);
      return `<select id="${id}" name="${n}"${req}>\n      <option value="">Choose…</option>\n${options.map((o) => `      <option value="${esc(o)}">${esc(o)}</option>`).join('\n')}\n    </select>`;
    }
    case 'checkbox':
      return `<input id="${id}" type="checkbox" name="${n}" value="yes"${req}>`;
    case 'hidden':
      return `<input type="hidden" name="${n}" value="${esc(f.extra)}">`;
    default:
      return `<input id="${id}" type="${f.type}" name="${n}"${f.extra && f.type !== 'file' ? ` placeholder="${esc(f.extra)}"` : ''}${req}>`;
  }
}

/** The form's HTML, to paste into a web page. */
export function formHtml(spec: FormSpec): string {
  const rows = spec.fields.map((f, i) => {
    const name = fieldName(f, i);
    const id = `f${i + 1}`;
    if (f.type === 'hidden') return `  ${control(f, name, id)}`;
    const label = `${esc(f.label.trim() || name)}${f.required ? ' *' : ''}`;
    if (f.type === 'checkbox') return `  <p>\n    <label>${control(f, name, id)} ${label}</label>\n  </p>`;
    return `  <p>\n    <label for="${id}">${label}</label><br>\n    ${control(f, name, id)}\n  </p>`;
  });
  const title = spec.title.trim() ? `  <h2>${esc(spec.title.trim())}</h2>\n` : '';
  return `<form action="${esc(spec.action)}" method="post" enctype="${enctypeOf(spec)}">\n${title}${rows.join('\n')}\n  <p><button type="submit">${esc(spec.submit.trim() || 'Send')}</button></p>\n</form>\n`;
}

/** The preview's document: the form with a little default styling. */
export function previewDocument(html: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Form preview</title><style>body{font-family:system-ui,sans-serif;margin:1rem}input:not([type=checkbox]),textarea,select{width:100%;max-width:28rem;padding:.3rem;box-sizing:border-box}</style></head><body>\n${html}</body></html>`;
}
