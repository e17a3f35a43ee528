#!/usr/bin/env node
/**
 * Rewrites citations of the notes the project was built from (`decisions §1`, `wire-facts §1.3`,
 * `seed §8.2`, `stream-facts §2`, `filter-language §2`, the outside `server.md`) into the pages of `docs/`
 * that restate them (docs/contract.md, docs/clients.md, docs/filters.md, docs/analysis.md). `contract-citations.spec.ts` fails while any is left; this is its
 * fix. `node packaging/contract-citations.mjs` rewrites in place and prints each file it changed;
 * `--check` only lists them.
 *
 * In source files a citation becomes a path with its anchor (`docs/contract.md#judgement-order`); in
 * docs, a link (`[judgement order](contract.md#judgement-order)`); in a heading it is dropped, and links
 * to the heading's old anchor follow it.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Which page and anchor restates each point. */
export const PAGES = {
  decisions: {
    1: 'contract.md#judgement-order',
    2: 'contract.md#hourly-allowances',
    3: 'contract.md#versions',
    4: 'contract.md#limiting-day-capacity-and-retention',
    5: 'contract.md#task-slots',
    6: 'contract.md#states',
    7: 'contract.md#bodies-and-parameters',
    8: 'contract.md#filter-and-analysis-limits',
    9: 'contract.md#the-stream',
    '': 'contract.md',
  },
  seed: {
    1: 'contract.md#endpoints-and-costs',
    2: 'contract.md#endpoints-and-costs',
    3: 'contract.md#states',
    4: 'contract.md#endpoints-and-costs',
    5: 'contract.md#judgement-order',
    7: 'contract.md#status-codes',
    8: 'contract.md#filter-and-analysis-limits',
    8.1: 'contract.md#hourly-allowances',
    8.2: 'contract.md#filter-and-analysis-limits',
    8.3: 'contract.md#task-slots',
    9: 'contract.md#versions',
    '': 'contract.md',
  },
  'wire-facts': {
    1.2: 'clients.md#authentication-forms',
    1.3: 'clients.md#how-parameters-travel',
    1.4: 'clients.md#how-clients-read-answers',
    1.5: 'clients.md#response-headers',
    1.6: 'clients.md#how-clients-read-answers',
    1.7: 'clients.md#error-bodies',
    1.8: 'clients.md#identifier-formats',
    1.9: 'clients.md#times-and-numbers-in-bodies',
    '2.0': 'clients.md#methods-per-endpoint',
    2.1: 'clients.md#core-calls-and-pull',
    2.2: 'clients.md#push-calls',
    2.3: 'clients.md#historics-calls',
    2.5: 'clients.md#managed-source-calls',
    2.8: 'clients.md#recordings-per-version',
    2.9: 'clients.md#tasks',
    '2.10': 'clients.md#reference-data',
    2.11: 'clients.md#ingestion',
    3.1: 'clients.md#recording',
    3.3: 'clients.md#push-subscription',
    3.4: 'clients.md#managed-source',
    3.8: 'clients.md#preview',
    3.9: 'clients.md#analysis',
    '3.10': 'clients.md#sample',
    3.11: 'clients.md#core-calls-and-pull',
    3.12: 'clients.md#balance',
    3.13: 'clients.md#availability',
    5: 'clients.md#what-no-client-shows',
    '': 'clients.md',
  },
  'stream-facts': { '': 'clients.md#stream-clients' },
  'filter-language': {
    1: 'filters.md#the-language',
    2: 'filters.md#operators-what-match-does',
    3: 'filters.md#targets',
    3.2: 'reference-data.md#the-sets',
    4: 'analysis.md#the-request-validateanalysisrequestraw',
    4.5: 'contract.md#filter-and-analysis-limits',
    5: 'filters.md#cost-dpu',
    '': 'filters.md',
  },
};

/** A section of the outside server.md, by the words that name it beside the citation (taken in with it). */
const SERVER_SECTIONS = { toolbox: 'contract.md#toolbox', 'package fields': 'contract.md#package-fields', 'operator api': 'contract.md#operator-api' };

// A citation may wrap: its section number at the start of the next line of the comment or paragraph.
const SECTIONS = '((?:[ \\t]*\\n[ \\t]*(?:\\*|//)?)?[ \\t]*§ *\\d+(?:\\.\\d+)?(?:(?: *, *| and )§ *\\d+(?:\\.\\d+)?)*)';
/**
 * `decisions §1`, `seed §8.2`, `filter-language §2`, `decisions.md`; `wire-facts` and `stream-facts` with or
 * without a section (a bare `filter-language` is the language, not a citation).
 */
const NOTE = new RegExp(`(?<![\\w/.-])(decisions|seed|filter-language)(?:\\.md\\b\`?${SECTIONS}?|\`?${SECTIONS})|(?<![\\w/.-])(wire-facts|stream-facts)\\b(?:\\.md)?\`?${SECTIONS}?`, 'gi');
/** `server.md` anywhere; `outsideServerNote` tells the outside note from the repository's own docs/server.md. */
const SERVER_NOTE = /`?server\.md`?(?:,? *"?(Toolbox|Package fields|Operator API)"?)?/g;

/** Not a path (`docs/server.md`), not a link's text (`[server.md]`) or target (`](server.md)`). */
function outsideServerNote(whole, offset, length) {
  const before = whole.slice(0, offset);
  const after = whole.slice(offset + length);
  if (/[\w/.-]$/.test(before) || /^[\w#-]/.test(after)) return false;
  if (before.endsWith('[')) return false;
  if (before.endsWith('](')) return false;
  return true;
}

function pageOf(note, number) {
  const table = PAGES[note.toLowerCase()];
  if (number === '') return table[''];
  return table[number] ?? table[number.split('.')[0]] ?? table[''];
}

function cited(note, sections) {
  const numbers = sections ? [...sections.matchAll(/§ *(\d+(?:\.\d+)?)/g)].map((m) => m[1]) : [''];
  return [...new Set(numbers.map((n) => pageOf(note, n)))];
}

const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** Rewrites one file's text; `doc`: a page of docs/ (links relative to it) rather than a source file. */
export function rewrite(text, doc, nested = false) {
  const renamed = [];
  // A heading loses its citation, so its anchor moves: note where from and where to.
  if (doc && !nested) {
    for (const line of text.split('\n').filter((l) => /^#{1,6} /.test(l))) {
      const to = rewrite(line, doc, true).text;
      if (to !== line) renamed.push([slug(line.replace(/^#+ /, '')), slug(to.replace(/^#+ /, ''))]);
    }
  }
  const asCitation = (pages) => (doc ? pages.map((p) => `[${(p.split('#')[1] ?? p.replace('.md', '')).replaceAll('-', ' ')}](${p})`) : pages.map((p) => `docs/${p}`)).join(', ');
  const inHeading = (whole, offset) => doc && /^#{1,6} /.test(whole.slice(whole.lastIndexOf('\n', offset - 1) + 1));
  text = text.replace(NOTE, (all, note, mdSections, sections, facts, factsSections, offset, whole) =>
    inHeading(whole, offset) ? '\u0000' : asCitation(cited(note ?? facts, (note ? mdSections ?? sections : factsSections) ?? '')),
  );
  const lines = text.split('\n').map((line) => {
    const heading = doc && /^#{1,6} /.test(line);
    let out = line.replace(SERVER_NOTE, (all, section, offset, whole) => {
      if (!outsideServerNote(whole, offset, all.length)) return all;
      if (heading) return '\u0000';
      const named = section
        ? SERVER_SECTIONS[section.toLowerCase()]
        : /^ *`--/.test(whole.slice(offset + all.length))
          ? 'contract.md#settings'
          : /package fields[^.]{0,60}$/i.test(whole.slice(0, offset))
            ? 'contract.md#package-fields'
          : /operator API[^.]{0,12}$/i.test(whole.slice(0, offset))
            ? 'contract.md#operator-api'
            : /(settings?|defaults)\b[^.]{0,30}$/i.test(whole.slice(0, offset)) || /^\)? flags/.test(whole.slice(offset + all.length))
              ? 'contract.md#settings'
              : 'contract.md#fixed-names-of-the-server';
      return asCitation([named]);
    });
    if (heading && out.includes('\u0000')) {
      // A heading loses its citation (and the brackets or separators left empty), so its anchor moves.
      out = out
        .replace(/ *[(,;]? *\u0000(?: *[,;] *\u0000)*/g, (m) => (m.trimStart().startsWith('(') ? ' (' : ''))
        .replace(/\( *[,;]? *\)/g, '')
        .replace(/\( *[,;] */g, '(')
        .replace(/ +$/, '');
    }
    return out;
  });
  // Two notes restated by one section ("seed §8.1, decisions §2") cite it once.
  const repeated = /(docs\/[\w.]+#[\w-]+|\[[^\]]+\]\([\w.]+#[\w-]+\))(?:(?:,| and) \1)+/g;
  return { text: lines.join('\n').replace(repeated, '$1'), renamed };
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (['node_modules', 'dist', '.git', 'packed'].includes(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|tsx|mts|js|mjs|md)$/.test(name)) out.push(path);
  }
  return out;
}

/** The files whose citations are held to the pages (the pages' own map of sources is not). */
export function citingFiles() {
  const skip = new Set(['docs/contract.md', 'docs/clients.md', 'packaging/contract-citations.mjs', 'packaging/contract-citations.spec.ts']);
  return [...walk(join(root, 'packages')), ...walk(join(root, 'bench')), ...walk(join(root, 'consumer')), ...walk(join(root, 'docs')), join(root, 'README.md')]
    .map((p) => relative(root, p))
    .filter((p) => !skip.has(p) && !p.startsWith('packaging/api/'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const renamed = [];
  const changed = new Map();
  for (const file of citingFiles()) {
    const text = readFileSync(join(root, file), 'utf8');
    const result = rewrite(text, file.startsWith('docs/'));
    renamed.push(...result.renamed);
    if (result.text !== text) changed.set(file, result.text);
  }
  // Links to a heading whose anchor moved follow it.
  for (const file of citingFiles().filter((f) => f.startsWith('docs/'))) {
    let text = changed.get(file) ?? readFileSync(join(root, file), 'utf8');
    for (const [from, to] of renamed) if (from !== to) text = text.replaceAll(`#${from})`, `#${to})`);
    if (text !== readFileSync(join(root, file), 'utf8')) changed.set(file, text);
  }
  for (const [file, text] of changed) {
    if (!check) writeFileSync(join(root, file), text);
    process.stdout.write(`${check ? 'cites a note' : 'rewrote'} ${file}\n`);
  }
  if (check && changed.size > 0) process.exitCode = 1;
}
