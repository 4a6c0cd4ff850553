import { parseCopyRow, type TextRow } from './batched-query-stream.js';

/** Every row of `data` (COPY's text format: one row a line), as parseCopyRow reads them. */
function rows(data: string): TextRow[] {
  const all: TextRow[] = [];
  const fields: TextRow = [];
  let start = 0;
  for (let end = data.indexOf('\n'); end !== -1; end = data.indexOf('\n', start)) {
    parseCopyRow(data, start, end, fields);
    all.push([...fields]);
    start = end + 1;
  }
  return all;
}

describe('parseCopyRow', () => {
  it('splits fields on tabs and reads \\N as null, an empty field as empty text', () => {
    expect(rows('1\t42\t\\N\tpending\n2\t7\t2026-11-25 05:03:54.5+00\tshipped\n')).toEqual([
      ['1', '42', null, 'pending'],
      ['2', '7', '2026-11-25 05:03:54.5+00', 'shipped'],
    ]);
    expect(rows('\t\\N\t\n')).toEqual([['', null, '']]);
  });

  it('undoes the backslash escapes COPY TO writes', () => {
    // A tab, a newline, a carriage return, a backslash and the text "\N" inside fields.
    expect(rows('a\\tb\tx\\ny\\rz\t\\\\\t\\\\N\t\\b\\f\\v\n')).toEqual([
      ['a\tb', 'x\ny\rz', '\\', '\\N', '\b\f\v'],
    ]);
  });

  it('reads only the row between start and end, into the array it is given', () => {
    const fields: TextRow = ['left over', 'from before', 'x'];
    const data = 'skip\tme\n3\t4\nnot this';
    parseCopyRow(data, 8, 11, fields);
    expect(fields).toEqual(['3', '4']);
  });
});
