import { streamNamer } from '../kernel/stream-names.ts';
import type { Decider, DomainEvent } from '../kernel/decider.ts';
import { evolveWith } from '../kernel/decider.ts';
import { BadRequest, Conflict, NotFound } from '../calls/errors.ts';
import { hashApiKey } from './api-key.ts';
import { completePackage, readPackageFields, storedPackage, type AccountPackage } from './package.ts';

/** An account: who may call, with which keys, under which package, and whether it is denied. */
export interface Account {
  exists: boolean;
  username: string;
  salt: string;
  /** The account's own key digest. */
  keyHash: string;
  package: AccountPackage;
  denied: boolean;
  deniedReason: string | null;
  openedAt: number;
}

export type AccountEvent =
  | DomainEvent<'AccountOpened', { username: string; salt: string; keyHash: string; package: AccountPackage; at: number }>
  | DomainEvent<'PackageChanged', { package: AccountPackage }>
  | DomainEvent<'AccountDenied', { reason: string }>
  | DomainEvent<'AccountAllowed', Record<string, never>>
  | DomainEvent<'ApiKeyReplaced', { keyHash: string }>;

export type AccountCommand =
  | { type: 'OpenAccount'; username: string; apiKey: string; salt: string; package: Partial<AccountPackage>; at: number }
  | { type: 'ChangePackage'; fields: Partial<AccountPackage> }
  | { type: 'DenyAccount'; reason: string }
  | { type: 'AllowAccount' }
  /** The operator's way back in when a key is lost (it is kept only as a digest). The salt stays: identities' keys are hashed with it. */
  | { type: 'ReplaceApiKey'; apiKey: string };

/** The account's stream; the same string for the same username (see `streamNamer`). */
export const accountStream: (username: string) => string = streamNamer('account:');

/** The documented character set of usernames (docs/security.md): checked before any store is asked. */
const USERNAME = /^[A-Za-z0-9_.@-]{1,64}$/;
export const isWellFormedUsername = (username: string): boolean => USERNAME.test(username);
export const USERNAME_RULE = 'username must be 1 to 64 letters, digits or _ . @ -';

/** No key the platform issues is longer or holds control characters; such a key is refused unread. */
const API_KEY_SHAPE = /^[\x21-\x7e\u00a0-\uffff]{1,256}$/;
export const isWellFormedApiKey = (apiKey: string): boolean => API_KEY_SHAPE.test(apiKey);

/**
 * A key every form of credentials carries (docs/clients.md#authentication-forms): a raw `Authorization: user:key` header is
 * read as Latin-1 and split at the first colon, and a comma in it reads as a second header joined on.
 */
const ISSUABLE_API_KEY = /^[\x21-\x2b\x2d-\x39\x3b-\x7e]{8,128}$/;

function checkApiKey(apiKey: string): void {
  if (!ISSUABLE_API_KEY.test(apiKey)) {
    throw new BadRequest('api_key must be 8 to 128 printable ASCII characters with no spaces, colons or commas');
  }
}

/**
 * A new account's fields checked as opening it checks them (`BadRequest` naming the rule broken), for
 * callers that open several and must refuse a bad list before opening any (the server's `--accounts`).
 * Whether the name is free is the store's to say, when it is opened. Answers the package fields read.
 */
export function checkNewAccountFields(input: { username: string; api_key?: string; package?: unknown }): Partial<AccountPackage> {
  if (!USERNAME.test(input.username)) throw new BadRequest(USERNAME_RULE);
  const fields = readPackageFields(input.package);
  if (input.api_key !== undefined) checkApiKey(input.api_key);
  return fields;
}

export const accountDecider: Decider<Account, AccountCommand, AccountEvent> = {
  // v2: the package gained the holding limits (snapshots of v1 lack them and are not read; the log rebuilds).
  // v3: and stream_connections (the stream product's connections at once).
  name: 'account.v3',
  initialState: () => ({
    exists: false,
    username: '',
    salt: '',
    keyHash: '',
    package: completePackage({}),
    denied: false,
    deniedReason: null,
    openedAt: 0,
  }),
  decide(command, state) {
    if (command.type === 'OpenAccount') {
      if (state.exists) throw new Conflict(`An account named ${command.username} already exists`);
      if (!USERNAME.test(command.username)) {
        throw new BadRequest(USERNAME_RULE);
      }
      checkApiKey(command.apiKey);
      return [
        {
          type: 'AccountOpened',
          data: {
            username: command.username,
            salt: command.salt,
            keyHash: hashApiKey(command.salt, command.apiKey),
            package: completePackage(command.package),
            at: command.at,
          },
        },
      ];
    }
    if (!state.exists) throw new NotFound('No such account');
    switch (command.type) {
      case 'ChangePackage':
        return [{ type: 'PackageChanged', data: { package: completePackage(command.fields, state.package) } }];
      case 'DenyAccount':
        return state.denied ? [] : [{ type: 'AccountDenied', data: { reason: command.reason } }];
      case 'AllowAccount':
        return state.denied ? [{ type: 'AccountAllowed', data: {} }] : [];
      case 'ReplaceApiKey':
        checkApiKey(command.apiKey);
        return [{ type: 'ApiKeyReplaced', data: { keyHash: hashApiKey(state.salt, command.apiKey) } }];
    }
  },
  evolve: evolveWith<Account, AccountEvent>({
    AccountOpened(s, d) {
      s.exists = true;
      s.username = d.username;
      s.salt = d.salt;
      s.keyHash = d.keyHash;
      s.package = storedPackage(d.package);
      s.openedAt = d.at;
    },
    PackageChanged(s, d) {
      s.package = storedPackage(d.package);
    },
    AccountDenied(s, d) {
      s.denied = true;
      s.deniedReason = d.reason;
    },
    AccountAllowed(s) {
      s.denied = false;
      s.deniedReason = null;
    },
    ApiKeyReplaced(s, d) {
      s.keyHash = d.keyHash;
    },
  }),
};
