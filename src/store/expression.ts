/**
 * DynamoDB expressions written with their attribute names and values beside them: every
 * `#name` and `:value` an expression uses is declared where the clause is built, never
 * inferred from the expression text.
 */

/** A condition (or any expression part) with the names and values it uses. */
export interface Condition {
  readonly expression: string;
  /** `#name` → attribute name. */
  readonly names: Readonly<Record<string, string>>;
  /** `:key` → value. */
  readonly values: Readonly<Record<string, unknown>>;
}

/** `#attribute op :key`, with `:key` bound to `value`. */
export function compare(
  attribute: string,
  op: '=' | '<' | '<=' | '>' | '>=',
  key: string,
  value: unknown,
): Condition {
  return {
    expression: `#${attribute} ${op} :${key}`,
    names: { [`#${attribute}`]: attribute },
    values: { [`:${key}`]: value },
  };
}

/** `#attribute = :key`. */
export function equals(attribute: string, key: string, value: unknown): Condition {
  return compare(attribute, '=', key, value);
}

/**
 * The task's generation is `generation`: `#generation = :key`, or, for the first generation,
 * the attribute absent as well, since the record leaves out a first generation
 * (docs/adr/0027-compact-history.md).
 */
export function generationIs(key: string, generation: number): Condition {
  const stored = equals('generation', key, generation);
  return generation === 1
    ? { ...stored, expression: `(attribute_not_exists(#generation) OR ${stored.expression})` }
    : stored;
}

/** `#left < #right`, both attributes of the item. */
export function lessThanAttribute(left: string, right: string): Condition {
  return {
    expression: `#${left} < #${right}`,
    names: { [`#${left}`]: left, [`#${right}`]: right },
    values: {},
  };
}

/** `#attribute = :k` for one value, `#attribute IN (:k1, :k2, …)` for several. */
export function oneOf(attribute: string, keyed: Readonly<Record<string, unknown>>): Condition {
  const keys = Object.keys(keyed);
  const values = Object.fromEntries(keys.map((key) => [`:${key}`, keyed[key]]));
  const list = keys.map((key) => `:${key}`).join(', ');
  return {
    expression: keys.length === 1 ? `#${attribute} = ${list}` : `#${attribute} IN (${list})`,
    names: { [`#${attribute}`]: attribute },
    values,
  };
}

/** `attribute_exists(#name)` for the attribute `attribute`. */
export function exists(name: string, attribute: string): Condition {
  return {
    expression: `attribute_exists(#${name})`,
    names: { [`#${name}`]: attribute },
    values: {},
  };
}

/** `attribute_not_exists(#attribute)`. */
export function notExists(attribute: string): Condition {
  return {
    expression: `attribute_not_exists(#${attribute})`,
    names: { [`#${attribute}`]: attribute },
    values: {},
  };
}

/** The conditions joined by AND; each joined condition is parenthesised when `group`. */
export function and(conditions: readonly Condition[], group = false): Condition {
  const parts = conditions.map((c) => (group ? `(${c.expression})` : c.expression));
  return {
    expression: parts.join(' AND '),
    names: Object.assign({}, ...conditions.map((c) => c.names)),
    values: Object.assign({}, ...conditions.map((c) => c.values)),
  };
}

/** The conditions joined by OR, each parenthesised, the whole parenthesised. */
export function or(conditions: readonly Condition[]): Condition {
  const joined = and(conditions, true);
  return { ...joined, expression: `(${conditions.map((c) => `(${c.expression})`).join(' OR ')})` };
}
