// fast-check arbitraries for the API fuzz suite (tests/fuzz-api.test.ts): values a
// zod contract accepts, generated from its JSON Schema (zod 4's z.toJSONSchema; the
// zod-to-fast-check packages on npm target zod 3 and fast-check 3), boundary values
// at its limits, and hostile values and bodies.
import fc from "fast-check";

export type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
};

const cap = (value: number | undefined, fallback: number, ceiling: number) => Math.min(value ?? fallback, ceiling);

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, cap(schema.maxLength, 40, 200));
  if (schema.format === "email") return fc.emailAddress().filter((email) => email.length <= maxLength);
  if (schema.format === "uuid") return fc.uuid();
  if (schema.format === "date-time") return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  if (schema.format === "uri" || schema.format === "url") return fc.webUrl();
  if (schema.pattern) {
    // Only the schema's own limits: the default cap would reject every match of a long fixed-length
    // pattern (a 64-digit hash) and fast-check would filter forever.
    const longest = schema.maxLength ?? Number.POSITIVE_INFINITY;
    return fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length >= minLength && text.length <= longest);
  }
  const plain = fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 40) });
  // The limits themselves: exactly the longest allowed, and one more.
  const edges = [
    schema.maxLength,
    schema.maxLength === undefined ? undefined : schema.maxLength + 1,
    minLength > 0 ? minLength - 1 : undefined,
  ]
    .filter((length): length is number => length !== undefined && length <= 70_000)
    .map((length) => "a".repeat(length));
  return edges.length ? fc.oneof({ weight: 5, arbitrary: plain }, { weight: 1, arbitrary: fc.constantFrom(...edges) }) : plain;
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum === undefined ? -1_000_000 : schema.exclusiveMinimum + 1);
  const max = schema.maximum ?? (schema.exclusiveMaximum === undefined ? 1_000_000 : schema.exclusiveMaximum - 1);
  const inRange = integer
    ? fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return fc.oneof({ weight: 5, arbitrary: inRange }, { weight: 1, arbitrary: fc.constantFrom(min, max, min - 1, max + 1) });
}

/** Values the schema describes (and, at its limits, the first ones past them). */
export function arbitraryFromJsonSchema(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices?.length) return fc.oneof(...choices.map((choice) => arbitraryFromJsonSchema(choice, depth + 1)));
  if (schema.allOf?.length) return arbitraryFromJsonSchema(schema.allOf[0] as JsonSchema, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return stringArbitrary(schema);
    case "integer":
      return numberArbitrary(schema, true);
    case "number":
      return numberArbitrary(schema, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(arbitraryFromJsonSchema(schema.items ?? {}, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, cap(schema.maxItems, 3, 4)),
      });
    case "object": {
      const properties = schema.properties ?? {};
      const record = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, arbitraryFromJsonSchema(value, depth + 1)]));
      const required = (schema.required ?? []).filter((key) => key in properties);
      return fc.record(record, { requiredKeys: required });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Text no client should send, and values of every wrong kind. */
const HOSTILE_STRINGS = [
  "\ud800",
  "ok\udfffok",
  "\u0000",
  "%ZZ",
  "../../../../etc/passwd",
  '\'; DROP TABLE "User"; --',
  "<script>alert(1)</script>",
  "$(touch /tmp/pwned)",
  "__proto__",
  "",
  " ",
  "🚀".repeat(50),
  "\u202e\u200b",
];

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(...HOSTILE_STRINGS),
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1e308, -0, 2 ** 53 + 1, [], {}, [[[[]]]], { __proto__: { admin: true } }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constant("x".repeat(20_000)), // over Node's 16 KiB request line when it lands in a query
  fc.jsonValue({ maxDepth: 3 }),
);

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** A body that is broken somewhere: one field made hostile, a wrong JSON type, deep nesting, over the size limit, not JSON. */
export function hostileBody(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const withHostileField = fc
    .tuple(valid, hostileValue, fc.option(fc.constantFrom("extra", "__proto__", "constructor"), { nil: undefined }), fc.nat())
    .map(([value, bad, extraKey, pick]) => {
      if (!value || typeof value !== "object" || Array.isArray(value)) return JSON.stringify(bad);
      const keys = Object.keys(value);
      const key = extraKey ?? keys[pick % Math.max(1, keys.length)] ?? "extra";
      return JSON.stringify({ ...(value as Record<string, unknown>), [key]: bad });
    });
  return fc.oneof(
    { weight: 6, arbitrary: withHostileField },
    { weight: 1, arbitrary: hostileValue.map((value) => JSON.stringify(value) ?? "null") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "",
        "{",
        "not json",
        "[1,2",
        '{"a":1}{"b":2}',
        "\u0000",
        '"\\ud800"',
        "[".repeat(200_000) + "]".repeat(200_000),
        nested(50_000),
        `{"content":"${"x".repeat(1_100_000)}"}`,
      ),
    },
  );
}
