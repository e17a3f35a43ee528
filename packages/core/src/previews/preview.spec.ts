import { describe, expect, it } from 'vitest';
import { deciderSpec } from '@sdp/testing';
import { parsePreviewParameters, runPreviewAnalysis } from './preview-analyses.ts';
import { PREVIEW_QUEUE_MS, previewProgressAt, previewRunMs, previewStatusAt, previewsDecider, type PreviewCommand, type PreviewEvent } from './preview.ts';

const spec = () => deciderSpec(previewsDecider);
const T0 = Date.parse('2026-05-01T00:00:00Z');
const ID = 'c'.repeat(40);
const START = T0 / 1000 - 86_400;
const END = START + 3600;
const RUN = previewRunMs(START, END);
const analyses = parsePreviewParameters('fb.author.gender,freqDist,5');
type Create = Extract<PreviewCommand, { type: 'CreatePreview' }>;
const create = (over: Partial<Create> = {}): Create => ({
  type: 'CreatePreview',
  id: ID,
  hash: 'f'.repeat(32),
  start: START,
  end: END,
  sources: ['facebook'],
  parameters: 'fb.author.gender,freqDist,5',
  analyses,
  at: T0,
  ...over,
});
const created: PreviewEvent = {
  type: 'PreviewCreated',
  data: { id: ID, hash: 'f'.repeat(32), start: START, end: END, sources: ['facebook'], parameters: 'fb.author.gender,freqDist,5', analyses, at: T0 },
};

describe('previews', () => {
  it('create: queued, then running, then succeeded on the clock', () => {
    const s = spec().when(create()).then([created]);
    const p = s.byId[ID]!;
    expect(previewStatusAt(p, T0)).toBe('queued');
    expect(previewStatusAt(p, T0 + PREVIEW_QUEUE_MS)).toBe('running');
    expect(previewProgressAt(p, T0 + PREVIEW_QUEUE_MS + RUN / 2)).toBe(50);
    expect(previewStatusAt(p, T0 + PREVIEW_QUEUE_MS + RUN)).toBe('succeeded');
  });

  it('create refuses a reversed or future span, a span over 31 days, no analyses (400) and a reused id (409)', () => {
    spec().when(create({ start: END, end: START })).thenThrows(400, /Start cannot be after end/);
    spec().when(create({ end: T0 / 1000 + 10 })).thenThrows(400, /future/);
    spec().when(create({ start: END - 40 * 86_400 })).thenThrows(400, /31 days/);
    spec().when(create({ analyses: [] })).thenThrows(400, /parameters/);
    spec().given([created]).when(create()).thenThrows(409);
  });

  it('completing records the data, dated at the finish; before the finish it is refused (409), and once done too', () => {
    const finish = T0 + PREVIEW_QUEUE_MS + RUN;
    const data = [{ ...analyses[0]!, output: { male: 2 } }];
    spec().given([created]).when({ type: 'CompletePreview', id: ID, at: finish - 1, data }).thenThrows(409, /Cannot complete preview: it is running/);
    const done: PreviewEvent = { type: 'PreviewSucceeded', data: { id: ID, at: finish, data } };
    const s = spec().given([created]).when({ type: 'CompletePreview', id: ID, at: finish + 99, data }).then([done]);
    expect(s.byId[ID]!.data).toEqual(data);
    spec().given([created, done]).when({ type: 'CompletePreview', id: ID, at: finish + 100, data }).thenThrows(409, /it is succeeded/);
  });

  it('an unknown preview answers 404', () => {
    spec().when({ type: 'CompletePreview', id: ID, at: T0, data: [] }).thenThrows(404, /No preview found/);
  });
});

describe('preview parameters and analyses', () => {
  it('reads triples joined by ; or ,', () => {
    expect(parsePreviewParameters('language.tag,freqDist,5;interaction.id,targetVol,hour')).toEqual([
      { target: 'language.tag', analysis: 'freqDist', threshold: 5 },
      { target: 'interaction.id', analysis: 'targetVol', interval: 'hour' },
    ]);
    expect(parsePreviewParameters('language.tag,freqDist,5,interaction.id,numStats,day')).toHaveLength(2);
  });

  it('refuses what is not a triple, an unknown analysis, a bad argument, or more than 20 (400)', () => {
    expect(() => parsePreviewParameters('language.tag,freqDist')).toThrow(/triples/);
    expect(() => parsePreviewParameters('language.tag,pie,5')).toThrow(/analysis must be one of/);
    expect(() => parsePreviewParameters('language.tag,freqDist,lots')).toThrow(/threshold/);
    expect(() => parsePreviewParameters('language.tag,targetVol,year')).toThrow(/interval/);
    expect(() => parsePreviewParameters('Bad Target,freqDist,5')).toThrow(/not a target/);
    expect(() => parsePreviewParameters(Array(21).fill('a.b,freqDist,1').join(';'))).toThrow(/at most 20/);
  });

  it('computes freqDist, wordCount, targetVol and numStats over interactions', () => {
    const at = Date.parse('2013-02-03T09:15:00Z');
    const items = [
      { at, interaction: { language: { tag: 'en' }, interaction: { content: 'Good coffee, good day', id: 'a' }, klout: { score: 40 } } },
      { at: at + 3_600_000, interaction: { language: { tag: 'en' }, interaction: { content: 'coffee', id: 'b' }, klout: { score: 60 } } },
      { at, interaction: { language: { tag: 'es' }, interaction: { id: 'c' } } },
    ];
    expect(runPreviewAnalysis({ target: 'language.tag', analysis: 'freqDist', threshold: 1 }, items).output).toEqual({ en: 2 });
    expect(runPreviewAnalysis({ target: 'interaction.content', analysis: 'wordCount', threshold: 2 }, items).output).toEqual({ coffee: 2, good: 2 });
    expect(runPreviewAnalysis({ target: 'interaction.id', analysis: 'targetVol', interval: 'hour' }, items).output).toEqual({
      '2013/02/03 09:00:00': 2,
      '2013/02/03 10:00:00': 1,
    });
    expect(runPreviewAnalysis({ target: 'klout.score', analysis: 'numStats', interval: 'day' }, items).output).toEqual({
      '2013/02/03 00:00:00': { count: 2, max: 60, sum: 100, min: 40 },
    });
  });
});
