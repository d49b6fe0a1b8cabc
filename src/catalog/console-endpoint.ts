/**
 * The catalog's words that the storefront's page shares: an endpoint and its parameters as the
 * console offers them, the categories and the parameter checks. Plain types with no import, so
 * the page's type check (web/tsconfig.json) reads this file and not the catalog with its schema
 * library: through storefront-catalog.ts it checked the whole catalog, half of its CPU.
 */

export type Category = 'intelligence' | 'execution' | 'timing' | 'defi' | 'market' | 'forensics';

/** Checks beyond JSON Schema, applied after type conversion. */
export type ParamCheck =
  | 'address'
  | 'signature'
  | 'address-list'
  | 'string-list'
  | 'positive-number-list'
  | 'base64-transaction'
  | 'nonblank'
  | 'atomic-amount';

/** One query parameter of an endpoint with the rules it is validated by. */
export interface ConsoleParam {
  readonly name: string;
  readonly type: 'string' | 'number' | 'integer' | 'boolean';
  readonly required: boolean;
  readonly description: string;
  /** The rule in words, e.g. `integer 0-5000; default 50`. */
  readonly rule: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  /** Allowed values of an enumerated parameter. */
  readonly values?: readonly string[];
  /** The value the endpoint uses when the parameter is absent, as query text. */
  readonly default?: string;
  /** The rule JSON Schema cannot express (`address`, `address-list` ...). */
  readonly check?: ParamCheck;
  /** Most elements of a comma-separated list. */
  readonly maxItems?: number;
  /** Largest element of a list of positive numbers. */
  readonly maxElement?: number;
}

/** One paid endpoint as the console offers it. */
export interface ConsoleEndpoint {
  readonly path: string;
  /** `$0.01`. */
  readonly price: string;
  readonly priceUnits: number;
  readonly category: Category;
  readonly summary: string;
  readonly description: string;
  readonly example: Readonly<Record<string, string>>;
  readonly params: readonly ConsoleParam[];
}
