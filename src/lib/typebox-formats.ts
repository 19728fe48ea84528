import { FormatRegistry } from '@sinclair/typebox';

// TypeBox's Value.Check knows no string formats until they are registered; HTTP validation uses ajv-formats.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => UUID.test(v));
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v));
