// files.md: the files of the captured request (form uploads, e-mail attachments).
import { bytesText } from '@capture/sdk/bytes';
import type { CapturedFile } from '@capture/sdk';
import { fail } from '../lang/errors.js';
import { WsArray } from '../lang/values.js';
import { optStr, str, type Host, type Library } from './host.js';

function fileList(host: Host): CapturedFile[] {
  const files = host.ctx.request.files ?? [];
  return Array.isArray(files) ? files : Object.values(files);
}

export function filesLibrary(host: Host): Library {
  const content = (id: string) => {
    const list = fileList(host);
    const file = list.find((f) => f.id === id) ?? list.find((f) => f.name === id);
    if (!file) return fail(`there is no file ${JSON.stringify(id)} in this request`);
    if (file.content === undefined) return fail(`the content of file ${JSON.stringify(id)} is not available`);
    return typeof file.content === 'string' ? file.content : bytesText(file.content);
  };
  return {
    files: (_c, a) => {
      const name = optStr(a, 0);
      return WsArray.list(
        fileList(host)
          .filter((f) => name === null || f.name === name)
          .map((f) =>
            WsArray.entries([
              ['id', f.id],
              ['name', f.name],
              ['filename', f.filename],
              ['size', f.size],
              ['content_type', f.content_type],
              ['content-type', f.content_type],
            ]),
          ),
      );
    },
    file_content: (_c, a) => content(str(a, 0)),
    file_contents: (_c, a) => content(str(a, 0)),
  };
}
