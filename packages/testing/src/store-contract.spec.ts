import { MemoryEventStore } from '@sdp/core';
import { storeContract } from './store-contract.ts';

storeContract('MemoryEventStore', async () => new MemoryEventStore());
