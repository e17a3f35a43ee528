import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { applyTags, compileFilter, readTarget, type Interaction } from './compiled-filter.ts';

const story = (content: string, extra: Record<string, unknown> = {}): Interaction => ({
  interaction: { content, subtype: 'story' },
  fb: { content, author: { age: '25-34', gender: 'female', country: 'United Kingdom', country_code: 'GB' }, type: 'story', ...extra },
});

const matches = (filter: string, i: Interaction, kind: 'definition' | 'query' = 'definition'): boolean => compileFilter(filter, { kind }).match(i).matched;

describe('readTarget', () => {
  it('reads dotted paths, maps over arrays on the way, and prefers a flat key', () => {
    const i = { fb: { topics: [{ name: 'BMW', category: 'Cars' }, { name: 'Audi' }], author: { age: '18-24' } }, 'links.domain': ['a.com'] };
    expect(readTarget(i, 'fb.author.age')).toBe('18-24');
    expect(readTarget(i, 'fb.topics.name')).toEqual(['BMW', 'Audi']);
    expect(readTarget(i, 'fb.topics.category')).toEqual(['Cars']);
    expect(readTarget(i, 'links.domain')).toEqual(['a.com']);
    expect(readTarget(i, 'fb.nothing.here')).toBeUndefined();
  });
});

describe('text operators (tokenized)', () => {
  const i = story('I love Big-Data meetups, and the café at 50% off! Dr_Cookie_Crisp');
  it.each([
    ['contains "big"', true],
    ['contains "BIG - data"', true],
    ['contains "big data"', false],
    ['contains "love big"', true],
    ['contains "bi"', false],
    ['contains "cafe"', false],
    ['contains "café"', true],
    ['contains "50%"', true],
    ['cs contains "big"', false],
    ['cs contains "Big"', true],
    ['contains [case(true)] "big"', false],
    ['contains_any "tea, coffee, meetups"', true],
    ['any "tea, coffee"', false],
    ['contains_any "cookie_crisp"', true],
    ['contains_any "tea, love big"', true],
    ['contains_all "love, café, off"', true],
    ['all "love, tea"', false],
    ['contains_near "love,meetups:4"', true],
    ['contains_near "love,meetups:3"', false],
    ['near "meetups,love:5"', true],
    ['wildcard "meet*"', true],
    ['wildcard "caf?"', true],
    ['wild "meet?"', false],
    ['substr "g-da"', true],
    ['substr "É AT"', true],
    ['cs substr "É AT"', false],
    ['contains_substr "ten"', false],
    ['regex_partial "\\\\d+%"', true],
    ['regex_exact "I love.*Crisp"', true],
    ['regex_exact "love"', false],
  ])('interaction.content %s -> %s', (op, expected) => {
    expect(matches(`interaction.content ${op}`, i)).toBe(expected);
  });

  it('substr crosses word edges: "en en" matches "Ten entry"', () => {
    expect(matches('interaction.content substr "en en"', story('Ten entry'))).toBe(true);
    expect(matches('interaction.content contains "en en"', story('Ten entry'))).toBe(false);
  });
});

describe('comparison, list and exists operators', () => {
  const i: Interaction = {
    interaction: { sample: 42.5, content: 'x' },
    fb: { author: { age: '25-34', gender: 'female' }, topic_ids: [565634324, 1], language: 'en' },
    links: { url: ['https://www.Example.com/blog/index.html?utm_source=x#top'], domain: ['example.com', 'bit.ly'] },
  };
  it.each([
    ['fb.author.gender == "female"', true],
    ['fb.author.gender == "FEMALE"', true],
    ['fb.author.gender cs == "FEMALE"', false],
    ['fb.author.gender != "male"', true],
    ['fb.author.gender != "female"', false],
    ['interaction.sample == 42.5', true],
    ['interaction.sample < 50', true],
    ['interaction.sample <= 42.5', true],
    ['interaction.sample > 42.5', false],
    ['interaction.sample >= 42.5', true],
    ['fb.topic_ids in [565634324, 7]', true],
    ['fb.topic_ids in [7]', false],
    ['fb.language in "de,en,es"', true],
    ['fb.language in "probably en"', false],
    ['fb.author.age in "18-24, 25-34"', true],
    ['links.domain == "bit.ly"', true],
    ['links.domain != "bit.ly"', true],
    ['not links.domain == "bit.ly"', false],
    ['links.url url_in "http://example.com/blog/"', true],
    ['links.url url_in "example.com"', false],
    ['fb.author.age exists', true],
    ['fb.author.region exists', false],
    ['not fb.author.region exists', true],
  ])('%s -> %s', (filter, expected) => {
    expect(matches(filter, i)).toBe(expected);
  });

  it('query filters compare ==, != and in case-sensitively', () => {
    expect(matches('fb.author.gender == "FEMALE"', i, 'query')).toBe(false);
    expect(matches('fb.author.gender == "female"', i, 'query')).toBe(true);
    expect(matches('fb.language in "EN"', i, 'query')).toBe(false);
  });
});

describe('missing targets and negation (docs/filters.md#the-language)', () => {
  const present = { interaction: { source: 'iPhone' } };
  const absent = { interaction: {} };
  it.each([
    ['interaction.source != "web"', true, false],
    ['interaction.source == "web"', false, false],
    ['not interaction.source == "web"', true, true],
    ['not interaction.source contains "data"', true, true],
  ])('%s: present %s, absent %s', (filter, whenPresent, whenAbsent) => {
    expect(matches(filter, present)).toBe(whenPresent);
    expect(matches(filter, absent)).toBe(whenAbsent);
  });

  test.prop([fc.constantFrom('contains "a"', 'substr "a"', '== "a"', '!= "a"', '> 1', '< 1', 'in "a,b"', 'contains_any "a"', 'wildcard "a*"', 'regex_partial "a"', 'exists')])(
    'any operator on a missing target is false, and its negation true',
    (op) => {
      expect(matches(`interaction.source ${op}`, absent)).toBe(false);
      expect(matches(`not interaction.source ${op}`, absent)).toBe(true);
    },
  );
});

describe('geo operators', () => {
  const at = (lat: number, lon: number): Interaction => ({ interaction: { geo: { latitude: lat, longitude: lon } } });
  it('geo_radius: within the radius in km of the centre', () => {
    expect(matches('interaction.geo geo_radius "40.7314,-73.9975:50"', at(40.75, -73.98))).toBe(true);
    expect(matches('interaction.geo geo_radius "40.7314,-73.9975:50"', at(42.36, -71.06))).toBe(false);
  });
  it('geo_box: between the top-left and the bottom-right corners', () => {
    expect(matches('interaction.geo geo_box "51.5013,-1.0997:51.4193,-0.8669"', at(51.45, -0.97))).toBe(true);
    expect(matches('interaction.geo geo_box "51.5013,-1.0997:51.4193,-0.8669"', at(51.6, -0.97))).toBe(false);
  });
  it('geo_polygon: inside the polygon; points may also be "lat,lon" text', () => {
    const f = 'interaction.geo geo_polygon "0,0:0,10:10,10:10,0"';
    expect(matches(f, at(5, 5))).toBe(true);
    expect(matches(f, at(5, 15))).toBe(false);
    expect(matches(f, { interaction: { geo: '5,5' } })).toBe(true);
  });
});

describe('logic', () => {
  test.prop([fc.boolean(), fc.boolean(), fc.boolean()])('and, or and not agree with boolean logic, AND binding tighter', (a, b, c) => {
    const t = (name: string, v: boolean) => `x.${name} == ${v ? 1 : 0}`;
    const f = `x.a exists and ${t('a', true)} or ${t('b', true)} and not ${t('c', true)}`;
    const i2 = { x: { a: a ? 1 : 0, b: b ? 1 : 0, c: c ? 1 : 0 } };
    expect(matches(f, i2)).toBe((true && a) || (b && !c));
  });
});

describe('tags and scores', () => {
  const f = compileFilter(`
    tag "Apple" { interaction.content contains_any "apple, mac" }
    tag.device.model "iPhone" { interaction.content contains "iphone" }
    tag.device.model "iPad" { interaction.content contains "ipad" }
    tag.intent.buy 10 { interaction.content contains "buy" }
    tag.intent.sell 20 { interaction.content contains "sell" }
    tag.mood.happy 10 { interaction.content contains "love" }
    tag.mood.sad 10 { interaction.content contains "love" }
    return { interaction.content exists }`);

  it('gives named and namespaced tags, and the scoring winner of each branch (a tie has none)', () => {
    const r = f.match(story('I love to buy and sell my iPhone at the Apple store'));
    expect(r).toEqual({ matched: true, tags: ['Apple', 'device.model.iPhone'], tagTree: { 'device.model': ['iPhone'] }, categories: ['intent.sell'] });
  });

  it('gives nothing to an interaction the return block does not match', () => {
    expect(f.match({ fb: {} })).toEqual({ matched: false, tags: [] });
  });

  it('applyTags writes them where analysis reads them', () => {
    const i = story('buy an ipad and an iphone');
    const tagged = applyTags(i, f.match(i));
    expect(readTarget(tagged, 'interaction.tag_tree.device.model')).toEqual(['iPhone', 'iPad']);
    expect(readTarget(tagged, 'interaction.ml.categories')).toEqual(['intent.buy']);
    expect(readTarget(tagged, 'interaction.tags')).toBeUndefined();
    expect(compileFilter('interaction.tag_tree.device.model == "iPad"', { kind: 'query' }).match(tagged).matched).toBe(true);
  });

  it('scores build up across rules of the same class', () => {
    const g = compileFilter('tag.spam.true 1 { fb.content contains "a" } tag.spam.true 1.5 { fb.content contains "b" } tag.spam.false 2 { fb.content exists } return { fb.content exists }');
    expect(g.match(story('a b')).categories).toEqual(['spam.true']);
    expect(g.match(story('a')).categories).toEqual(['spam.false']);
  });
});

describe('inclusion by hash', () => {
  it('stream "<hash>" includes the filter logic of a compiled definition, without its tags', () => {
    const inner = compileFilter('tag "inner" { fb.content contains "x" } return { fb.author.gender == "female" }');
    const outer = compileFilter(`stream "${inner.hash}" and fb.content contains "coffee"`);
    expect(outer.match(story('coffee x'))).toEqual({ matched: true, tags: [] });
    expect(outer.match({ fb: { content: 'coffee', author: { gender: 'male' } } }).matched).toBe(false);
  });

  it('tags "<hash>" applies the tag rules of a tags-only definition beside local ones', () => {
    const rules = compileFilter('tag "Venice" { fb.content contains "venice" } tag "Rome" { fb.content contains "rome" }');
    const f = compileFilter(`tags "${rules.hash}" tag "Italy" { fb.content exists } return { fb.content contains "trip" }`);
    expect(f.match(story('a trip to Venice')).tags).toEqual(['Venice', 'Italy']);
    expect(rules.match(story('venice')).matched).toBe(false);
  });
});

describe('indexed tag rules', () => {
  const vocab = ['red', 'green', 'blue', 'Cyan', 'black', 'white'];
  const word = fc.constantFrom(...vocab);
  const body = fc.oneof(
    word.map((w) => `fb.content contains "${w}"`),
    fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => `fb.content contains_any "${ws.join(', ')}"`),
    word.map((w) => `fb.content cs contains "${w}"`),
    fc.tuple(word, word).map(([a, b]) => `fb.content contains "${a} ${b}"`),
    word.map((w) => `not fb.content contains "${w}"`),
    fc.constantFrom('18-24', '25-34').map((a) => `fb.author.age == "${a}"`),
  );
  const rule = fc.record({ ns: fc.constantFrom('', 'colour.', 'colour.dark.'), name: fc.constantFrom('a', 'b', 'c', 'd'), body });
  const interaction = fc.record({
    content: fc.array(word, { maxLength: 8 }).map((ws) => ws.join(' ')),
    age: fc.constantFrom('18-24', '25-34'),
  });

  test.prop([fc.array(rule, { minLength: 1, maxLength: 25 }), fc.array(interaction, { minLength: 1, maxLength: 5 })], { numRuns: 150 })(
    'a classifier gives exactly the tags of the rules whose bodies match, in rule order',
    (rules, items) => {
      const text = rules.map((r) => `tag.${r.ns}x "${r.name}" { ${r.body} }`.replace('tag..x', 'tag.x').replace('tag.x "', 'tag "')).join('\n');
      const f = compileFilter(`${text}\nreturn { fb.content exists or fb.author.age exists }`);
      for (const it of items) {
        const i = { fb: { content: it.content, author: { age: it.age } } };
        const expected: string[] = [];
        for (const r of rules) {
          const name = r.ns === '' ? r.name : `${r.ns}x.${r.name}`;
          if (compileFilter(r.body).match(i).matched && !expected.includes(name)) expected.push(name);
        }
        expect(f.match(i).tags).toEqual(expected);
      }
    },
  );
});

describe('merged keyword tests under OR', () => {
  const vocab = ['red', 'Green', 'blue', 'cyan', 'black'];
  const condition = fc.oneof(
    fc.constantFrom(...vocab).map((w) => `fb.content contains "${w}"`),
    fc.constantFrom(...vocab).map((w) => `fb.content cs contains "${w}"`),
    fc.constantFrom(...vocab).map((w) => `fb.parent.content contains "${w}"`),
    fc.array(fc.constantFrom(...vocab), { minLength: 1, maxLength: 3 }).map((ws) => `fb.content any "${ws.join(',')}"`),
    fc.tuple(fc.constantFrom(...vocab), fc.constantFrom(...vocab)).map(([a, b]) => `fb.content contains "${a} ${b}"`),
    fc.constantFrom(...vocab).map((w) => `fb.content contains [keep(classic)] "${w}"`),
  );
  const text = fc.array(fc.constantFrom(...vocab, 'RED', 'x'), { maxLength: 6 }).map((ws) => ws.join(' '));

  test.prop([fc.array(condition, { minLength: 2, maxLength: 8 }), text, text], { numRuns: 200 })(
    'an OR of conditions matches exactly when one of its conditions matches on its own',
    (conds, content, parent) => {
      const i = { fb: { content, parent: { content: parent } } };
      const expected = conds.some((c) => compileFilter(c).match(i).matched);
      expect(compileFilter(conds.join(' or ')).match(i).matched).toBe(expected);
    },
  );
});
