import { readFileSync } from 'node:fs';
import type { Server as NetServer, Socket } from 'node:net';

/** Descriptors left beside connections for the store, the access log and the files a process opens. */
export const DESCRIPTOR_MARGIN = 256;
/** The total when the process's descriptor limit cannot be read (not Linux) or has none. */
export const FALLBACK_MAX_CONNECTIONS = 16_384;
/**
 * Connections one client address may hold at once: well above what a test or a bench opens from the
 * loopback address (about 1,250 idle connections), well below the total, so one address cannot take
 * every descriptor.
 */
export const DEFAULT_MAX_PER_ADDRESS = 4_096;

/** How many connections a process may hold in all and from one address. */
export interface ConnectionLimits {
  maxConnections?: number;
  maxPerAddress?: number;
}

/**
 * The process's soft limit on open descriptors less `DESCRIPTOR_MARGIN` (read from /proc/self/limits,
 * which Node has already raised to the hard limit), or `FALLBACK_MAX_CONNECTIONS`. `limitsText` is for tests.
 */
export function defaultMaxConnections(limitsText?: string): number {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return FALLBACK_MAX_CONNECTIONS;
    }
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined || !/^\d+$/.test(soft)) return FALLBACK_MAX_CONNECTIONS;
  return Math.max(1, Number(soft) - DESCRIPTOR_MARGIN);
}

/**
 * Connections held now, in all and by client address, against their limits. A connection over either
 * limit is destroyed as it is accepted, before a byte of it is read: the refusal costs no parser, no
 * answer and no time, and the connections already held go on. Shared by every port of a process.
 */
export class ConnectionBudget {
  readonly maxConnections: number;
  readonly maxPerAddress: number;
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(limits: ConnectionLimits = {}) {
    this.maxConnections = limits.maxConnections ?? defaultMaxConnections();
    this.maxPerAddress = limits.maxPerAddress ?? DEFAULT_MAX_PER_ADDRESS;
  }

  /** Counts the socket until it closes and answers `true`, or destroys it and answers `false`. */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? '';
    const held = this.byAddress.get(address) ?? 0;
    // A socket already gone (reset before it was accepted) has no address and no place to take.
    if (socket.destroyed || this.total >= this.maxConnections || held >= this.maxPerAddress) {
      socket.destroy();
      return false;
    }
    this.total++;
    this.byAddress.set(address, held + 1);
    socket.once('close', () => {
      this.total--;
      const left = (this.byAddress.get(address) ?? 1) - 1;
      if (left > 0) this.byAddress.set(address, left);
      else this.byAddress.delete(address);
    });
    return true;
  }

  /** Connections held now: in all, and from `address` when given. */
  held(address?: string): number {
    return address === undefined ? this.total : (this.byAddress.get(address) ?? 0);
  }

  /**
   * Puts the budget in front of `server`'s connection listeners (those it has now: node:http's parser, or a
   * `--workers` primary's hand-off): a connection over budget never reaches them.
   */
  guard(server: NetServer): void {
    const listeners = server.listeners('connection') as ((socket: Socket) => void)[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      if (!this.admit(socket)) return;
      for (const listener of listeners) listener.call(server, socket);
    });
  }
}

/** The budget of every port that brings none of its own: all the ports of a process draw on its descriptors. */
let shared: ConnectionBudget | undefined;

/** The process's budget, with the default limits (made on first use). */
export function processBudget(): ConnectionBudget {
  shared ??= new ConnectionBudget();
  return shared;
}
