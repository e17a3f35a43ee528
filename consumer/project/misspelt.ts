// Must NOT compile: the endpoint id is misspelt.
import type { ApiCall } from '@sdp/core';

export const call: ApiCall = { version: '1.5', endpoint: 'core.valdate' };
