import { describe, expect, it } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import { DEFAULT_INPUT_TEMPLATES, compileInputTemplate, renderInputTemplate, templateForTarget } from '../../src/vectors/template.js';

function caught(fn: () => unknown): OctxError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OctxError) return e;
    throw e;
  }
  throw new Error('expected an OctxError');
}

describe('renderInputTemplate', () => {
  const event = { id: 'ev-1', title: 'Passing Five Passes', content: 'Guan Yu passed.', level: 2, weight: 0.5, top: true };

  it('substitutes strings as-is and finite numbers via String()', () => {
    expect(renderInputTemplate('{title}\n\n{content}', event, 'ev-1')).toBe('Passing Five Passes\n\nGuan Yu passed.');
    expect(renderInputTemplate('L{level} w={weight} {top}', event, 'ev-1')).toBe('L2 w=0.5 true');
    expect(renderInputTemplate('{title}{title}', event, 'ev-1')).toBe('Passing Five PassesPassing Five Passes');
    expect(renderInputTemplate('no fields', event, 'ev-1')).toBe('no fields');
    expect(renderInputTemplate('', event, 'ev-1')).toBe('');
  });

  it('keeps an empty string field (the field exists)', () => {
    expect(renderInputTemplate('[{x}]', { x: '' }, 'r')).toBe('[]');
  });

  it('treats {{ and }} as literal braces', () => {
    expect(renderInputTemplate('{{title}} = {title}', event, 'ev-1')).toBe('{title} = Passing Five Passes');
    expect(renderInputTemplate('{{{title}}}', event, 'ev-1')).toBe('{Passing Five Passes}');
    expect(renderInputTemplate('}}{{', event, 'ev-1')).toBe('}{');
  });

  it('works with non-ASCII field names and values', () => {
    expect(renderInputTemplate('名称：{名称}', { 名称: '关羽' }, 'e')).toBe('名称：关羽');
  });

  it.each([
    ['missing', {}, 'is missing'],
    ['null', { name: null }, 'is null'],
    ['an object', { name: { first: 'a' } }, 'not a string or finite number'],
    ['an array', { name: ['a'] }, 'not a string or finite number'],
    ['NaN', { name: Number.NaN }, 'not a string or finite number'],
    ['Infinity', { name: Number.POSITIVE_INFINITY }, 'not a string or finite number'],
  ])('refuses a field that is %s, naming record and field', (_what, record, text) => {
    const e = caught(() => renderInputTemplate('Entity: {name}', record, 'ent-9'));
    expect(e.code).toBe('OCTX_TEMPLATE_FIELD_MISSING');
    expect(e.issues[0]).toMatchObject({ recordId: 'ent-9', field: 'name' });
    expect(e.message).toContain(text);
  });

  it('does not read inherited properties', () => {
    const record = Object.create({ name: 'inherited' }) as Record<string, unknown>;
    expect(caught(() => renderInputTemplate('{name}', record, 'r')).code).toBe('OCTX_TEMPLATE_FIELD_MISSING');
    expect(caught(() => renderInputTemplate('{toString}', {}, 'r')).code).toBe('OCTX_TEMPLATE_FIELD_MISSING');
  });

  it.each(['{name', 'a } b', '{}', '{a{b}}', 'x{'])('refuses the malformed template %j', (template) => {
    const e = caught(() => renderInputTemplate(template, { name: 'n', a: 'a', b: 'b' }, 'r'));
    expect(e.code).toBe('OCTX_VECTOR_CONFIG_INVALID');
    expect(e.issues[0]?.field).toBe('input_template');
  });

  it('accepts interface-typed records', () => {
    interface Entity {
      readonly id: string;
      readonly name: string;
    }
    const entity: Entity = { id: 'e1', name: 'Guan Yu' };
    expect(renderInputTemplate('{name}', entity, entity.id)).toBe('Guan Yu');
  });

  it('compiles once for many records', () => {
    const render = compileInputTemplate('{name} ({type})');
    expect(render({ name: 'Guan Yu', type: 'person' }, 'a')).toBe('Guan Yu (person)');
    expect(render({ name: 'Jingzhou', type: 'place' }, 'b')).toBe('Jingzhou (place)');
  });
});

describe('templateForTarget', () => {
  it('uses the defaults when input_template is absent', () => {
    expect(DEFAULT_INPUT_TEMPLATES).toEqual({ chunks: '{text}', events: '{title}\n\n{content}', entities: '{name}' });
    expect(Object.isFrozen(DEFAULT_INPUT_TEMPLATES)).toBe(true);
    expect(templateForTarget({}, 'chunks')).toBe('{text}');
    expect(templateForTarget({}, 'events')).toBe('{title}\n\n{content}');
    expect(templateForTarget({}, 'entities')).toBe('{name}');
  });

  it('applies a string template to every target', () => {
    expect(templateForTarget({ input_template: 'passage: {text}' }, 'chunks')).toBe('passage: {text}');
    expect(templateForTarget({ input_template: 'passage: {text}' }, 'entities')).toBe('passage: {text}');
  });

  it('picks the target from an object and refuses a missing or wrong entry', () => {
    const config = { input_template: { chunks: 'c: {text}', events: 7 } };
    expect(templateForTarget(config, 'chunks')).toBe('c: {text}');
    const wrong = caught(() => templateForTarget(config, 'events'));
    expect(wrong.code).toBe('OCTX_VECTOR_CONFIG_INVALID');
    expect(wrong.issues[0]?.field).toBe('input_template.events');
    expect(caught(() => templateForTarget(config, 'entities')).issues[0]?.field).toBe('input_template.entities');
    expect(caught(() => templateForTarget({ input_template: ['x'] }, 'chunks')).issues[0]?.field).toBe('input_template');
    expect(caught(() => templateForTarget({ input_template: null }, 'chunks')).code).toBe('OCTX_VECTOR_CONFIG_INVALID');
  });
});
