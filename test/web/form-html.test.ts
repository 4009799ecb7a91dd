// The Form Builder's HTML (web/src/form-html.ts): names from labels, the encoding chosen by the
// fields, required marks, and every typed value escaped so that it stays text.
import { describe, expect, it } from 'vitest';
import { fieldName, formHtml, type FormField } from '../../web/src/form-html.js';

const field = (over: Partial<FormField>): FormField => ({ key: 1, label: '', name: '', type: 'text', required: false, extra: '', ...over });

describe('form builder HTML', () => {
  it('names fields from their labels unless named, and numbers unnamed ones', () => {
    expect(fieldName(field({ label: 'Full name' }), 0)).toBe('full_name');
    expect(fieldName(field({ label: '  E-mail address! ' }), 0)).toBe('e_mail_address');
    expect(fieldName(field({ label: 'Whatever', name: 'own' }), 0)).toBe('own');
    expect(fieldName(field({ label: '***' }), 2)).toBe('field_3');
  });

  it('posts urlencoded to the action, multipart once a field uploads files', () => {
    const spec = { title: 'Hi', action: 'http://x.test/abc/form', submit: 'Go', fields: [field({ label: 'Name', required: true })] };
    const html = formHtml(spec);
    expect(html).toContain('<form action="http://x.test/abc/form" method="post" enctype="application/x-www-form-urlencoded">');
    expect(html).toContain('<label for="f1">Name *</label>');
    expect(html).toContain('<input id="f1" type="text" name="name" required>');
    expect(html).toContain('<button type="submit">Go</button>');
    expect(formHtml({ ...spec, fields: [...spec.fields, field({ label: 'CV', type: 'file' })] })).toContain('enctype="multipart/form-data"');
  });

  it('escapes labels, names, options, placeholders, hidden values and the title', () => {
    const html = formHtml({
      title: '<script>alert(1)</script>',
      action: 'http://x.test/"onload="x',
      submit: '</form>',
      fields: [
        field({ label: '<b>Bold</b>', name: 'a"b', extra: '"><img src=x>' }),
        field({ label: 'Pick', type: 'select', extra: 'red\n<blue>\n\n"green"' }),
        field({ label: 'Secret', type: 'hidden', extra: "it's <here>" }),
      ],
    });
    expect(html).not.toMatch(/<script|<b>|<img|<blue>/);
    expect(html).toContain('<h2>&lt;script&gt;alert(1)&lt;/script&gt;</h2>');
    expect(html).toContain('action="http://x.test/&quot;onload=&quot;x"');
    expect(html).toContain('name="a&quot;b" placeholder="&quot;&gt;&lt;img src=x&gt;"');
    expect(html).toContain('<option value="&lt;blue&gt;">&lt;blue&gt;</option>');
    expect(html).toContain('<option value="&quot;green&quot;">&quot;green&quot;</option>');
    expect(html.match(/<option /g)).toHaveLength(4); // "Choose…" and the three non-empty lines
    expect(html).toContain('<input type="hidden" name="secret" value="it&#39;s &lt;here&gt;">');
    expect(html).toContain('<button type="submit">&lt;/form&gt;</button>');
  });
});
