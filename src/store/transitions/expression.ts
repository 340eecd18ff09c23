/**
 * The condition builder of the transition table: DynamoDB expressions written with their
 * attribute names and values beside them. Every `#name` and `:value` an expression uses is
 * declared where the clause is built, never inferred from the expression text. Every row of
 * the table (see index.ts) states its condition, and its changes ({@link Update}), with these.
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

/** The condition negated: `NOT (condition)`. */
export function not(condition: Condition): Condition {
  return { ...condition, expression: `NOT (${condition.expression})` };
}

/** `contains(#attribute, :key)`: a set or list attribute holds `value`. */
export function contains(attribute: string, key: string, value: unknown): Condition {
  return {
    expression: `contains(#${attribute}, :${key})`,
    names: { [`#${attribute}`]: attribute },
    values: { [`:${key}`]: value },
  };
}

/** `begins_with(#attribute, :key)`. */
export function beginsWith(attribute: string, key: string, prefix: string): Condition {
  return {
    expression: `begins_with(#${attribute}, :${key})`,
    names: { [`#${attribute}`]: attribute },
    values: { [`:${key}`]: prefix },
  };
}

/** `size(#attribute) op :key`. */
export function sizeOf(
  attribute: string,
  op: '=' | '<' | '<=',
  key: string,
  value: number,
): Condition {
  return {
    expression: `size(#${attribute}) ${op} :${key}`,
    names: { [`#${attribute}`]: attribute },
    values: { [`:${key}`]: value },
  };
}

/**
 * The changes of one UpdateItem, each clause declared with the names and values it uses.
 * Values are keyed `:u_<attribute>` (and `:u_<attribute>_<n>` for a second use), so they
 * never meet a condition's keys.
 */
export class Update {
  private readonly sets: string[] = [];
  private readonly adds: string[] = [];
  private readonly removes: string[] = [];
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};

  private name(attribute: string): string {
    this.names[`#${attribute}`] = attribute;
    return `#${attribute}`;
  }

  private value(attribute: string, value: unknown): string {
    const base = `:u_${attribute.replace(/[^A-Za-z0-9_]/g, '_')}`;
    let key = base;
    for (let n = 1; key in this.values; n++) key = `${base}_${n}`;
    this.values[key] = value;
    return key;
  }

  /** `SET #attribute = :value`; an undefined value is skipped. */
  set(attribute: string, value: unknown): this {
    if (value !== undefined)
      this.sets.push(`${this.name(attribute)} = ${this.value(attribute, value)}`);
    return this;
  }

  /** `SET #attribute = #other`: copies another attribute of the item. */
  copy(attribute: string, from: string): this {
    this.sets.push(`${this.name(attribute)} = ${this.name(from)}`);
    return this;
  }

  /** `SET #attribute = #from + :by`: another attribute of the item, which must exist, moved on. */
  offset(attribute: string, from: string, by: number): this {
    this.sets.push(`${this.name(attribute)} = ${this.name(from)} + ${this.value(attribute, by)}`);
    return this;
  }

  /** `SET #attribute = if_not_exists(#attribute, 0) + :by`. */
  increment(attribute: string, by = 1): this {
    const zero = this.value(`${attribute}_zero`, 0);
    const step = this.value(attribute, by);
    const name = this.name(attribute);
    this.sets.push(`${name} = if_not_exists(${name}, ${zero}) + ${step}`);
    return this;
  }

  /** `SET #attribute = #attribute + :by`: the attribute must exist. */
  step(attribute: string, by: number): this {
    const name = this.name(attribute);
    this.sets.push(`${name} = ${name} + ${this.value(attribute, by)}`);
    return this;
  }

  /** `SET #attribute = list_append(#attribute, :items)`. */
  append(attribute: string, items: readonly unknown[]): this {
    const name = this.name(attribute);
    this.sets.push(`${name} = list_append(${name}, ${this.value(attribute, items)})`);
    return this;
  }

  /** `SET #attribute = list_append(if_not_exists(#attribute, []), :items)`: the list may be absent. */
  appendOrCreate(attribute: string, items: readonly unknown[]): this {
    const name = this.name(attribute);
    const empty = this.value(`${attribute}_empty`, []);
    this.sets.push(
      `${name} = list_append(if_not_exists(${name}, ${empty}), ${this.value(attribute, items)})`,
    );
    return this;
  }

  /** `ADD #attribute :value`: a number added, or members added to a set. */
  add(attribute: string, value: unknown): this {
    this.adds.push(`${this.name(attribute)} ${this.value(attribute, value)}`);
    return this;
  }

  /** `REMOVE #attribute`. */
  remove(attribute: string): this {
    this.removes.push(this.name(attribute));
    return this;
  }

  /** The UpdateExpression, with the names and values it uses. */
  build(): Condition {
    const clauses = [
      this.sets.length === 0 ? '' : `SET ${this.sets.join(', ')}`,
      this.adds.length === 0 ? '' : `ADD ${this.adds.join(', ')}`,
      this.removes.length === 0 ? '' : `REMOVE ${this.removes.join(', ')}`,
    ];
    return {
      expression: clauses.filter((c) => c !== '').join(' '),
      names: { ...this.names },
      values: { ...this.values },
    };
  }
}
