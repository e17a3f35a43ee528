/**
 * Markup for the reports: htm templates into preact elements, written out by preact-render-to-string,
 * which escapes every text and attribute it is given (a scenario's names reach the page as data, never
 * as markup).
 *
 * preact and preact-render-to-string are imported by a name the type-checker does not follow: their
 * type declarations reference the DOM library, which would then apply to every package that imports the
 * simulator (and change what `fetch` accepts in their tests). What is used of them (and of htm) is typed here.
 */
export interface Markup {
  readonly type: unknown;
  readonly props: unknown;
}

type CreateElement = (type: unknown, props: Record<string, unknown> | null, ...children: unknown[]) => Markup;

// `'name' as string` is no module name to the type-checker; the built file imports 'name' as written.
const { h } = (await import('preact' as string)) as { h: CreateElement };
const { render } = (await import('preact-render-to-string' as string)) as { render: (tree: Markup) => string };
// htm has one declaration file for its CommonJS and ES entries, which NodeNext reads as CommonJS: its
// default export would not type-check as Node loads it (the ES entry's default).
const { default: htm } = (await import('htm' as string)) as { default: { bind(h: CreateElement): (strings: TemplateStringsArray, ...values: unknown[]) => Markup } };

export const html = htm.bind(h);

/** A whole page: the doctype, then the element tree as HTML. */
export const page = (tree: Markup): string => `<!doctype html>\n${render(tree)}\n`;
