import { MemoryEventStore } from '@sdp/core/kernel';
import { storeContract } from './store-contract.ts';

storeContract('MemoryEventStore', async () => new MemoryEventStore());
