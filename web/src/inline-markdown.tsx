// The inline Markdown of action-type descriptions (`code`, **bold**, *emphasis*, [links](url)) as
// elements: never HTML from the text, and links only to http(s) addresses.
import type { ComponentChildren } from 'preact';

const TOKEN = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g;

export function inlineMarkdown(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index! > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(<code>{m[1]}</code>);
    else if (m[2] !== undefined) out.push(<strong>{m[2]}</strong>);
    else if (m[3] !== undefined) out.push(<em>{m[3]}</em>);
    else
      out.push(
        <a href={m[5]} target="_blank" rel="noopener noreferrer">
          {m[4]}
        </a>,
      );
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** The same text without its Markdown marks, for searching and for `title` attributes. */
export const plainText = (text: string): string => text.replace(TOKEN, (_, code, bold, em, link) => code ?? bold ?? em ?? link ?? '');

export function InlineMarkdown({ text }: { text: string }) {
  return <>{inlineMarkdown(text)}</>;
}
