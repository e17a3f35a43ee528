import type * as z from 'zod';
import type { EndpointId } from '../catalogue/endpoints.ts';
import { VERSIONS, atLeast, type VersionId } from '../catalogue/versions.ts';
import { ErrorAnswer, Identity, Limit, NewIdentity, PushSubscription, Task, Token, ManagedSource, AnalysisResult, Dpu, accountAnswers, coreAnswers, historicsAnswers, insightAnswers, previewAnswers, pushAnswers, sourceAnswers, taskAnswers } from './answers.ts';
import { streamAnswers, streamParams } from './stream-terms.ts';
import { STRATEGY_TASKS_FROM, accountParams, coreParams, historicsParams, insightParams, previewParams, pushParams, sourceParams, tasksParams } from './params.ts';

/**
 * The contract of one endpoint in one version: the parameters it reads and each success answer by
 * status (a 204 has none). Errors all answer `ErrorAnswer`.
 */
export interface Terms<P extends z.ZodType = z.ZodType> {
  params: P;
  /** Success answers by status; `null` for one with no body (204). Empty: the catalogue's codes, none with a body. */
  answers: Readonly<Partial<Record<number, z.ZodType | null>>>;
}

const terms = <P extends z.ZodType, A extends Partial<Record<number, z.ZodType | null>>>(params: P, answers: A): { params: P; answers: A } => ({ params, answers });

/** Which breaking changes an endpoint's shape reads (versions.ts lists them in words). */
const byId = (v: VersionId) => atLeast(v, '1.3');
const tasksTyped = (v: VersionId) => atLeast(v, STRATEGY_TASKS_FROM);

/**
 * Every catalogue row's terms, by version: the one table the handlers, OpenAPI, the types and the
 * test arbitraries read. A row missing here does not compile.
 */
export const CONTRACT = {
  'tasks.list': (v: VersionId) => terms(tasksParams.list(tasksTyped(v)), { 200: taskAnswers.list }),
  'tasks.get': (v: VersionId) => terms(tasksParams.get(tasksTyped(v)), { 200: Task }),
  'tasks.create': (v: VersionId) => terms(tasksParams.create(tasksTyped(v)), { 202: taskAnswers.created }),
  'insight.analyze': (v: VersionId) => terms(insightParams.analyze(byId(v)), { 200: AnalysisResult }),
  'insight.validate': () => terms(insightParams.filter(), { 200: insightAnswers.validated }),
  'insight.sample': (v: VersionId) => terms(insightParams.sample(byId(v)), { 200: insightAnswers.sample }),
  'insight.start': (v: VersionId) => terms(insightParams.start(byId(v)), byId(v) ? { 200: insightAnswers.started } : { 204: null }),
  'insight.compile': () => terms(insightParams.filter(), { 200: insightAnswers.compiled }),
  'insight.get': (v: VersionId) => terms(insightParams.get(byId(v)), { 200: insightAnswers.get(byId(v)) }),
  'insight.stop': (v: VersionId) => terms(insightParams.stop(byId(v)), {}),
  'insight.tags': (v: VersionId) => terms(insightParams.tags(byId(v)), { 200: insightAnswers.tags }),
  'insight.update': (v: VersionId) => terms(insightParams.update(byId(v)), {}),
  'insight.reference.list': () => terms(insightParams.referenceList(), { 200: insightAnswers.referenceList }),
  'insight.reference.get': () => terms(insightParams.referenceGet(), { 200: insightAnswers.referenceGet }),
  'account.identity.list': () => terms(accountParams.identityList(), { 200: accountAnswers.identityList }),
  'account.identity.create': () => terms(accountParams.identityCreate(), { 201: NewIdentity }),
  'account.identity.get': () => terms(accountParams.identityGet(), { 200: Identity }),
  'account.identity.update': () => terms(accountParams.identityUpdate(), { 200: Identity }),
  'account.identity.delete': () => terms(accountParams.identityGet(), {}),
  'account.identity.limit.list': () => terms(accountParams.limitList(), { 200: accountAnswers.limitList }),
  'account.identity.token.list': () => terms(accountParams.tokenList(), { 200: accountAnswers.tokenList }),
  'account.identity.token.create': () => terms(accountParams.token(), { 201: Token }),
  'account.identity.token.get': () => terms(accountParams.tokenNamed(), { 200: Token }),
  'account.identity.token.update': () => terms(accountParams.token(), { 200: Token, 201: Token }),
  'account.identity.token.delete': () => terms(accountParams.tokenNamed(), {}),
  'account.identity.limit.create': () => terms(accountParams.limit(), { 201: Limit }),
  'account.identity.limit.get': () => terms(accountParams.limitNamed(), { 200: Limit }),
  'account.identity.limit.update': () => terms(accountParams.limit(), { 200: Limit, 201: Limit }),
  'account.identity.limit.delete': () => terms(accountParams.limitNamed(), {}),
  'account.usage': () => terms(accountParams.usage(), { 200: accountAnswers.usage }),
  'core.validate': () => terms(coreParams.filter(), { 200: coreAnswers.validated }),
  'core.compile': () => terms(coreParams.filter(), { 200: coreAnswers.compiled }),
  'core.usage': (v: VersionId) => terms(coreParams.usage(), { 200: coreAnswers.usage(atLeast(v, '1.1')) }),
  'core.dpu': () => terms(coreParams.dpu(), { 200: Dpu }),
  'core.balance': () => terms(coreParams.balance(), { 200: coreAnswers.balance }),
  'push.validate': () => terms(pushParams.validate(), { 200: pushAnswers.validated }),
  'push.create': (v: VersionId) => terms(pushParams.create(!atLeast(v, '1.2')), { 200: PushSubscription }),
  'push.pause': () => terms(pushParams.named(), { 200: PushSubscription }),
  'push.resume': () => terms(pushParams.named(), { 200: PushSubscription }),
  'push.update': () => terms(pushParams.update(), { 200: PushSubscription }),
  'push.stop': () => terms(pushParams.named(), { 200: PushSubscription }),
  'push.delete': () => terms(pushParams.named(), {}),
  'push.log': () => terms(pushParams.log(), { 200: pushAnswers.log }),
  'push.get': () => terms(pushParams.get(), { 200: pushAnswers.get }),
  'push.pull': () => terms(pushParams.pull(), { 200: pushAnswers.pull, 204: null }),
  'historics.prepare': () => terms(historicsParams.prepare(), { 200: historicsAnswers.prepared }),
  'historics.start': () => terms(historicsParams.named(), {}),
  'historics.stop': () => terms(historicsParams.withReason(), {}),
  'historics.status': () => terms(historicsParams.status(), { 200: historicsAnswers.status }),
  'historics.update': () => terms(historicsParams.update(), {}),
  'historics.delete': () => terms(historicsParams.named(), {}),
  'historics.get': (v: VersionId) => terms(historicsParams.get(), { 200: historicsAnswers.get(atLeast(v, '1.1')) }),
  'historics.pause': () => terms(historicsParams.withReason(), {}),
  'historics.resume': () => terms(historicsParams.named(), {}),
  'preview.create': () => terms(previewParams.create(), { 202: previewAnswers.created }),
  'preview.get': () => terms(previewParams.get(), { 200: previewAnswers.get, 202: previewAnswers.get }),
  'source.create': () => terms(sourceParams.create(), { 201: ManagedSource }),
  'source.stop': () => terms(sourceParams.named(), { 200: ManagedSource }),
  'source.start': () => terms(sourceParams.named(), { 200: ManagedSource }),
  'source.update': () => terms(sourceParams.update(), { 202: ManagedSource }),
  'source.delete': () => terms(sourceParams.named(), {}),
  'source.get': () => terms(sourceParams.get(), { 200: sourceAnswers.get }),
  'source.log': () => terms(sourceParams.log(), { 200: sourceAnswers.log }),
  'source.auth.add': () => terms(sourceParams.authAdd(), { 200: ManagedSource }),
  'source.auth.remove': () => terms(sourceParams.authRemove(), { 200: ManagedSource }),
  'source.resource.add': () => terms(sourceParams.resourceAdd(), { 200: ManagedSource }),
  'source.resource.remove': () => terms(sourceParams.resourceRemove(), { 200: ManagedSource }),
  'source.category.get': () => terms(sourceParams.categories(), { 200: sourceAnswers.categories }),
  ingest: () => terms(sourceParams.ingest(), { 200: sourceAnswers.ingested }),
  'stream.open': () => terms(streamParams.open(), { 200: streamAnswers.opened }),
  'stream.subscribe': () => terms(streamParams.subscribe(), { 200: streamAnswers.subscribed }),
  'stream.unsubscribe': () => terms(streamParams.unsubscribe(), { 200: streamAnswers.changed }),
  'stream.deliveries': () => terms(streamParams.deliveries(), { 200: streamAnswers.changed }),
  'stream.close': () => terms(streamParams.close(), { 200: streamAnswers.closed }),
  'stream.charge': () => terms(streamParams.charge(), { 200: streamAnswers.charged }),
} satisfies Record<EndpointId, (v: VersionId) => Terms>;

type TermsOf<Id extends EndpointId> = ReturnType<(typeof CONTRACT)[Id]>;

/** The parameters a handler of `Id` receives, after the wire's spellings are read (any version). */
export type ParamsOf<Id extends EndpointId> = z.output<TermsOf<Id>['params']>;

/** The body of a success answer of `Id` (any version, any success status). */
export type AnswerOf<Id extends EndpointId> = AnswerBodies<TermsOf<Id>['answers']>;
type AnswerBodies<A> = A extends unknown ? { [S in keyof A]: A[S] extends z.ZodType ? z.output<A[S]> : never }[keyof A] : never;

const BUILT = new Map<EndpointId, Map<VersionId, Terms>>();

/** The last terms asked for: a server's calls mostly repeat one endpoint and version, found without a lookup. */
let lastId: EndpointId | undefined;
let lastVersion: VersionId | undefined;
let lastTerms: Terms | undefined;

/** The terms of an endpoint in a version, built once (on the call path: no key is built to find them). */
export function termsOf(id: EndpointId, version: VersionId): Terms {
  if (id === lastId && version === lastVersion) return lastTerms!;
  const terms = builtTerms(id, version);
  lastId = id;
  lastVersion = version;
  lastTerms = terms;
  return terms;
}

function builtTerms(id: EndpointId, version: VersionId): Terms {
  let byVersion = BUILT.get(id);
  if (!byVersion) BUILT.set(id, (byVersion = new Map()));
  let t = byVersion.get(version);
  if (!t) byVersion.set(version, (t = (CONTRACT[id] as (v: VersionId) => Terms)(version)));
  return t;
}

/**
 * The schema an answer of `status` must meet: `ErrorAnswer` from 400, `null` for an answer with no body,
 * `undefined` for a status the endpoint does not answer with success in that version.
 */
export function answerSchemaOf(id: EndpointId, version: VersionId, status: number): z.ZodType | null | undefined {
  if (status >= 400) return ErrorAnswer;
  const answers = termsOf(id, version).answers;
  if (Object.keys(answers).length === 0) return status === 204 ? null : undefined;
  return answers[status];
}

export { ErrorAnswer };
export const CONTRACT_VERSIONS = VERSIONS.map((v) => v.id);
