/**
 * A concrete path for a catalogue template, with plausible values: the first allowed word of a limited
 * parameter, `facebook` for a service, a hex id of the platform's length. For tours of the catalogue
 * (tests, documentation examples) that must grow with it.
 */
export function samplePath(template: string): string {
  return template.replace(/\{(\w+)(?:=([\w|]+))?\}/g, (_, name: string, words?: string) => {
    if (words) return words.split('|')[0]!;
    if (name === 'service') return 'facebook';
    return 'a'.repeat(name === 'id' ? 40 : 32);
  });
}
