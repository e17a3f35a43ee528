import { readFileSync } from 'node:fs';
import { Conflict, checkNewAccountFields, type Engine } from '@sdp/core';

/** What `--accounts` did at start: each entry opened, or found there from an earlier start. */
export interface OpenedAccounts {
  opened: string[];
  existing: string[];
  /**
   * The keys generated for entries that named none (as `POST /_admin/accounts` generates one): shown once
   * at start, since only their hashes are kept and nothing else would ever tell them.
   */
  generated: { username: string; apiKey: string }[];
}

/** A start that opened nothing (each call a fresh report: callers may keep and change theirs). */
export const noAccountsOpened = (): OpenedAccounts => ({ opened: [], existing: [], generated: [] });

/** `--accounts FILE`: a JSON list of accounts (the fields of `POST /_admin/accounts`) opened at start. */
export async function openAccountsFromFile(engine: Engine, file: string): Promise<OpenedAccounts> {
  let list: unknown;
  try {
    list = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`--accounts ${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(list)) throw new Error(`--accounts ${file}: expected a JSON list of accounts`);
  // Every entry is checked before any is opened: a bad file opens nothing, so fixing it and starting
  // again opens the whole list (an account opened before the failure would keep a generated key
  // nobody was shown).
  const entries: { username: string; api_key?: string; package?: unknown }[] = [];
  for (const [i, entry] of list.entries()) {
    const e = entry as { username?: unknown; api_key?: unknown; package?: unknown };
    if (typeof e !== 'object' || e === null || typeof e.username !== 'string') throw new Error(`--accounts ${file}: entry ${i} needs a username`);
    if (e.api_key !== undefined && typeof e.api_key !== 'string') throw new Error(`--accounts ${file}: entry ${i}: api_key must be a string`);
    // A key given is the key, an empty one included (refused as the operator API refuses it).
    const fields = { username: e.username, ...(e.api_key !== undefined ? { api_key: e.api_key } : {}), package: e.package };
    try {
      checkNewAccountFields(fields);
    } catch (error) {
      throw new Error(`--accounts ${file}: entry ${i}: ${(error as Error).message}`);
    }
    entries.push(fields);
  }
  const opened: string[] = [];
  const existing: string[] = [];
  const generated: { username: string; apiKey: string }[] = [];
  for (const [i, fields] of entries.entries()) {
    try {
      const account = await engine.openAccount(fields);
      opened.push(fields.username);
      if (fields.api_key === undefined) generated.push({ username: fields.username, apiKey: account.api_key });
    } catch (error) {
      // A restart over a durable store finds the accounts it opened last time.
      if (error instanceof Conflict) existing.push(fields.username);
      else throw new Error(`--accounts ${file}: entry ${i}: ${(error as Error).message}`);
    }
  }
  return { opened, existing, generated };
}
