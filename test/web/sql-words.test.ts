// The SQL typeahead's words: which word is being typed, and which table and column names complete it.
import { describe, expect, it } from 'vitest';
import { sqlName, sqlSuggestions, wordAt } from '../../web/src/actions/sql-words.js';

const tables = [
  {
    name: 'contacts',
    columns: [
      { name: 'id', type: 'integer' },
      { name: 'email', type: 'text' },
    ],
  },
  {
    name: 'Orders',
    columns: [
      { name: 'id', type: 'integer' },
      { name: 'contact_id', type: 'integer' },
    ],
  },
];
const labels = (typed: string, qualifier: string | null = null) => sqlSuggestions(tables, typed, qualifier).map((s) => s.label);

describe('SQL typeahead words', () => {
  it('finds the word at the caret, with a qualifier, but not in literals, parameters or variables', () => {
    expect(wordAt('select * from con', 17)).toEqual({ start: 14, typed: 'con', qualifier: null });
    expect(wordAt('select c.em', 11)).toEqual({ start: 9, typed: 'em', qualifier: 'c' });
    expect(wordAt('select "Orders".', 16)).toEqual({ start: 16, typed: '', qualifier: 'Orders' });
    expect(wordAt("where email = 'con", 18)).toBeNull();
    expect(wordAt('where id = :con', 15)).toBeNull();
    expect(wordAt('where id = $request.con', 23)).toBeNull();
    expect(wordAt('select ', 7)).toBeNull();
  });

  it('offers tables then columns by prefix in any case, a table’s own columns after its name', () => {
    expect(labels('co')).toEqual(['contacts', 'contact_id']);
    expect(labels('O')).toEqual(['Orders']);
    expect(labels('', 'contacts')).toEqual(['id', 'email']);
    expect(labels('i', 'orders')).toEqual(['id']);
    expect(labels('contacts')).toEqual([]);
  });

  it('quotes names PostgreSQL would fold or misread', () => {
    expect(sqlName('contacts')).toBe('contacts');
    expect(sqlName('Orders')).toBe('"Orders"');
    expect(sqlName('a "b"')).toBe('"a ""b"""');
    expect(sqlSuggestions(tables, 'Or', null)[0]!.insert).toBe('"Orders"');
  });
});
