/** Where the JSON form of the seed schema lives, and its exact text (the unit test compares the two). */
export const SEED_SCHEMA_FILE = 'shared/seed/seed.schema.json';

export const seedSchemaJson = (schema: object): string => `${JSON.stringify(schema, null, 2)}\n`;
