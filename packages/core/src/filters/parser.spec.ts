import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BadRequest } from '../calls/errors.ts';
import { compileFilter } from './compiled-filter.ts';
import { definitionArb } from '../../test/filter-arbitraries.ts';
import { lex } from './lexer.ts';
import { parseDefinition } from './parser.ts';
import { printDefinition } from './printer.ts';

/** The reference examples of docs/filters.md#the-language, all accepted by the platform or its docs. */
const EXAMPLES = [
  'interaction.content contains "Packard" AND NOT interaction.content contains "Hewlett"',
  'interaction.sample < 50 and (twitter.text contains "coffee" or (twitter.retweet.text contains "coffee" and interaction.sample <= 10))',
  'not twitter.user.verified exists and twitter.user.screen_name substr "official"',
  'interaction.content cs contains "LOUD"',
  'interaction.content cs any "Apple,Google,Microsoft"',
  'twitter.mention_ids in [155505157, 155505158, 155505159]',
  'language.tag in "en,de,es" and interaction.sample < 1',
  'newscred.article.content contains_near "Yahoo, Microsoft:400"',
  'interaction.content regex_partial "([a-z0-9_\\\\.-]+)@([\\\\da-z\\\\.-]+)\\\\.([a-z\\\\.]{2,6})"',
  'interaction.geo geo_radius "40.73141253955102,-73.9975634765625:50"',
  'twitter.text /* maybe try interaction.content */ contains "Whataburger"',
  'twitter.text contains [keep(classic)] "I love Big Data"',
  'interaction.content contains [case(true)] "AbAbAb"',
  'tags "a8979ef1255a7d511998553f2f22819d" return { interaction.content contains "Venice" }',
  'tag.device.model.apple "iPhone" { interaction.source contains "iPhone" } return { interaction.content exists }',
  'tag.spam.false 2 { fb.content contains "big data meetup" } return { fb.content exists }',
  'fb.author.gender == "male" and fb.author.age == "65+" and fb.author.country_code == "US" and fb.parent.content contains "coffee"',
  '(fb.content contains_any "luxury,executive" OR fb.parent.content contains_any "luxury,executive") AND (fb.topics.category == "Cars" or fb.parent.topics.category == "Cars")',
  'tag.keyword "ruby" { interaction.content contains_any "ruby, rails" }\ntag.score 1 { interaction.content contains "ruby" }\nreturn { interaction.content contains "ruby" }',
  'wikipedia.diff.from == 486625803 and salience.content.sentiment < -2',
  'interaction.geo geo_box "51.5013,-1.0997:51.4193,-0.8669"',
  'interaction.geo geo_polygon "51.5,-1.0:51.4,-0.8:51.3,-1.1"',
  'links.url url_in "http://www.datasift.com/index.html, bit.ly/x"',
  'interaction.content wildcard "print*, col?r"',
  'interaction.content contains_all "big, data" or interaction.content substr "en en"',
  'stream "f0596f03644177b8bf5b59708a08bfe8" and not rule "F0596F03644177B8BF5B59708A08BFE8"',
  '// a comment line\ninteraction.content\n  contains "multi\nline"',
];

describe('the parser', () => {
  it.each(EXAMPLES)('accepts the reference example %#', (text) => {
    expect(() => compileFilter(text)).not.toThrow();
  });

  it('reads AND tighter than OR and NOT tighter than AND', () => {
    const d = parseDefinition('a.x exists or b.x exists and not c.x exists');
    expect(d.body).toMatchObject({ type: 'or', items: [{ type: 'cond', target: 'a.x' }, { type: 'and', items: [{ target: 'b.x' }, { type: 'not' }] }] });
  });

  it('reads keywords, operators and targets in any case, and synonyms as their operator', () => {
    const a = compileFilter('FB.Content ANY "x" AND fb.content CONTAINS_SUBSTR "y" Or fb.content Wild "z*"');
    const b = compileFilter('fb.content contains_any "x" and fb.content substr "y" or fb.content wildcard "z*"');
    expect(a.canonical).toBe(b.canonical);
    expect(a.hash).toBe(b.hash);
  });

  it('reads a return block without tag rules as the plain filter it holds (same hash)', () => {
    expect(compileFilter('return { fb.type exists }').hash).toBe(compileFilter('fb.type exists').hash);
  });

  it('keeps \\, as a literal comma inside a list item, and trims items', () => {
    const d = parseDefinition('interaction.content contains_any "a\\, b\\, c, d ,  e"');
    expect(d.body).toMatchObject({ arg: { kind: 'list', items: ['a, b, c', 'd', 'e'] } });
  });

  it('decodes \\" and \\\\ in strings and leaves other escapes for the operator', () => {
    const d = parseDefinition('interaction.content regex_partial "say \\"hi\\" \\\\. \\d"');
    expect(d.body).toMatchObject({ arg: { kind: 'string', value: 'say "hi" \\. \\d' } });
  });

  it('numbers: integers, decimals and signs; targets may start with a digit', () => {
    const d = parseDefinition('interaction.sample < 5.25 and 2ch.type == -3');
    expect(d.body).toMatchObject({ items: [{ arg: { kind: 'number', value: 5.25 } }, { target: '2ch.type', arg: { kind: 'number', value: -3 } }] });
  });
});

describe('parse errors name the line and position', () => {
  const refusal = (text: string): BadRequest => {
    try {
      compileFilter(text);
    } catch (e) {
      expect(e).toBeInstanceOf(BadRequest);
      return e as BadRequest;
    }
    throw new Error(`accepted: ${text}`);
  };

  it('the recorded example: "is" at line 1 position 21', () => {
    const e = refusal('interaction.nonsense is not valid');
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/^We are unable to parse this stream\. At line 1 position 21 we were expecting one of: an operator/);
    expect(e.extra).toEqual({ line: 1, position: 21 });
  });

  it.each([
    ['fb.content contains "a" and\n  and fb.type exists', 2, 2, /a condition/],
    ['fb.content contains "a" and (fb.type exists', 1, 43, /"\)"/],
    ['fb.content contains "unterminated', 1, 20, /closing quote/],
    ['fb.content contains "a"\n/* open comment', 2, 0, /end of this comment/],
    ['fb.author.age > "18"', 1, 16, /a number/],
    ['fb.content contains', 1, 19, /text value/],
    ['fb.type exists fb.content exists', 1, 15, /"and", "or" or the end/],
    ['', 1, 0, /a condition/],
    ['fb.content contains "a" ; fb.type exists', 1, 24, /a target, an operator/],
    ['tag "x" { fb.type exists } fb.type exists', 1, 27, /return block/],
  ])('%j fails at line %i position %i', (text, line, position, expecting) => {
    const e = refusal(text);
    expect(e.message).toContain(`At line ${line} position ${position} we were expecting`);
    expect(e.message).toMatch(expecting);
  });

  it('semantic refusals name the target and where it stands', () => {
    const e = refusal('fb.type exists and\nfb.contwent contains "x"');
    expect(e.message).toBe('The target fb.contwent does not exist (at line 2 position 0)');
  });

  it('refuses tag namespaces with spaces or all-digit parts, and bad regular expressions', () => {
    expect(refusal('tag.levis.501 "x" { fb.type exists } return { fb.type exists }').message).toMatch(/namespace/);
    expect(refusal('fb.content regex_partial "(a"').message).toMatch(/regular expression is not valid/);
    expect(refusal('fb.content regex_partial "(a)\\\\1"').message).toMatch(/backreferences/);
    expect(refusal('fb.content regex_partial "(?=a)b"').message).toMatch(/lookaround is not supported/);
    expect(refusal('fb.content regex_partial "a{1001}"').message).toMatch(/invalid repeat count: `\{1001\}`/);
    // Nested repetition is linear on the automaton, so it is accepted now.
    expect(() => compileFilter('fb.content regex_partial "(a+)+$"')).not.toThrow();
    expect(() => compileFilter('fb.content regex_exact "(x|y*){2,}"')).not.toThrow();
    expect(() => compileFilter('fb.content regex_partial "(ab)+c*[(+]+\\\\(a+\\\\)+"')).not.toThrow();
  });
});

/** Re-spells a canonical text: other spacing, comments between tokens, keywords in other cases. */
function respell(canonical: string, seps: string[], upper: boolean[]): string {
  const tokens = lex(canonical);
  const KEYWORDS = /^(and|or|not|return|tags|stream|contains|contains_any|exists|in|substr|cs|wildcard)$/;
  let out = '';
  for (let k = 0; k < tokens.length - 1; k++) {
    const t = tokens[k]!;
    let src = canonical.slice(t.at, tokens[k + 1]!.at).trimEnd();
    if (t.kind === 'word' && KEYWORDS.test(src) && upper[k % upper.length]) src = src.toUpperCase();
    out += src + seps[k % seps.length];
  }
  return out;
}

describe('round trips (properties)', () => {
  test.prop([definitionArb], { numRuns: 300 })('parse(print(ast)) equals ast for generated definitions', (d) => {
    expect(parseDefinition(printDefinition(d))).toEqual(d);
  });

  test.prop([definitionArb], { numRuns: 200 })('the canonical form is a fixed point: printing what it parses to gives it back', (d) => {
    const c = printDefinition(d);
    expect(printDefinition(parseDefinition(c))).toBe(c);
  });

  const sep = fc.constantFrom(' ', '  ', '\n', '\t', ' /* note */ ', '/**/', ' // line comment\n', '\r\n  ');
  test.prop([definitionArb, fc.array(sep, { minLength: 1, maxLength: 7 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 })], { numRuns: 200 })(
    'the hash is stable under whitespace, comment and keyword-case changes',
    (d, seps, upper) => {
      const canonical = printDefinition(d);
      const a = compileFilter(canonical);
      const b = compileFilter(respell(canonical, seps, upper));
      expect(b.canonical).toBe(a.canonical);
      expect(b.hash).toBe(a.hash);
      expect(a.hash).toMatch(/^[0-9a-f]{32}$/);
    },
  );

  test.prop([definitionArb, definitionArb], { numRuns: 100 })('different canonical forms get different hashes', (x, y) => {
    fc.pre(printDefinition(x) !== printDefinition(y));
    expect(compileFilter(printDefinition(x)).hash).not.toBe(compileFilter(printDefinition(y)).hash);
  });
});
