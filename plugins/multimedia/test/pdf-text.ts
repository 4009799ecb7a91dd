// Reads a PDF made by pdfkit back for assertions: page sizes, the drawn text and link targets.
import zlib from 'node:zlib';

/** The contents of every stream, inflated when it is deflated. */
export function pdfStreams(pdf: Buffer): string[] {
  const out: string[] = [];
  const text = pdf.toString('latin1');
  const re = /<<((?:(?!>>\s*stream)[\s\S])*)>>\s*stream\r?\n/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const start = m.index + m[0].length;
    const end = text.indexOf('endstream', start);
    const bytes = pdf.subarray(start, end);
    try {
      out.push((/\/FlateDecode/.test(m[1]) ? zlib.inflateSync(bytes) : bytes).toString('latin1'));
    } catch {
      out.push('');
    }
    re.lastIndex = end;
  }
  return out;
}

/** Text drawn with TJ/Tj, one entry per text operator (pdfkit writes glyph strings as hex). */
export function pdfText(pdf: Buffer): string {
  const lines: string[] = [];
  for (const s of pdfStreams(pdf)) {
    for (const m of s.matchAll(/\[((?:<[0-9a-fA-F]*>|[^\]])*)\]\s*TJ|(<[0-9a-fA-F]*>|\((?:\\.|[^\\)])*\))\s*Tj/g)) {
      const body = m[1] ?? m[2];
      let line = '';
      for (const part of body.matchAll(/<([0-9a-fA-F]*)>|\(((?:\\.|[^\\)])*)\)/g)) {
        line += part[1] !== undefined ? Buffer.from(part[1], 'hex').toString('latin1') : part[2].replace(/\\(.)/g, '$1');
      }
      lines.push(line);
    }
  }
  return lines.join('\n');
}

/** [width, height] of each page's MediaBox. */
export function mediaBoxes(pdf: Buffer): Array<[number, number]> {
  return [...pdf.toString('latin1').matchAll(/\/MediaBox \[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]/g)].map((m) => [Number(m[3]) - Number(m[1]), Number(m[4]) - Number(m[2])]);
}

/** URIs of link annotations. */
export function pdfLinks(pdf: Buffer): string[] {
  return [...pdf.toString('latin1').matchAll(/\/URI \(((?:\\.|[^\\)])*)\)/g)].map((m) => m[1].replace(/\\(.)/g, '$1'));
}
