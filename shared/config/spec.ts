/**
 * The shape of one setting read from the environment. Pure data and types: the agent bundle imports this
 * module too, so it imports nothing of the store or the HTTP layer.
 */

/** Who reads a setting: the API's functions, the on-host agent, `npm start` and the CLIs under scripts/, the
 * host simulator, the test suite, `serverless deploy` (serverless.yml), the `hostmgr` command-line client. */
export type Reader = 'functions' | 'agent' | 'npm start' | 'scripts' | 'simulator' | 'tests' | 'deploy' | 'cli';

interface Common {
  readers: readonly Reader[];
  /** one line: what it changes */
  description: string;
  /** the default as the configuration table shows it, when the parsed default alone does not say it all */
  defaultText?: string;
  /** never echoed in an error message (tokens, connection strings with passwords) */
  secret?: boolean;
  /** an agent option: its command-line flag (`--<flag>`), which wins over the environment variable */
  flag?: string;
}

export type IntSpec = Common & { type: 'int'; default: number | undefined; min: number; max: number };
/** a decimal number (fractions allowed), e.g. a backoff in seconds */
export type NumberSpec = Common & { type: 'number'; default: number | undefined; min: number; max: number };
export type StringSpec = Common & { type: 'string'; default: string | undefined; pattern?: RegExp; patternText?: string };
/** an http(s) URL */
export type UrlSpec = Common & { type: 'url'; default: string | undefined };
export type EnumSpec = Common & { type: 'enum'; values: readonly string[]; default: string | undefined };
/** `true`/`1`/`yes` or `false`/`0`/`no` */
export type FlagSpec = Common & { type: 'flag'; default: boolean };
/** comma-separated CIDR ranges or bare addresses, e.g. `10.0.0.0/8,2001:db8::/32,192.0.2.7` */
export type CidrsSpec = Common & { type: 'cidrs' };
/** an IPv4 or IPv6 address literal */
export type IpSpec = Common & { type: 'ip' };

export type SettingSpec = IntSpec | NumberSpec | StringSpec | UrlSpec | EnumSpec | FlagSpec | CidrsSpec | IpSpec;

/** The parsed value a setting yields: the default's type, or `undefined` where there is no default. */
export type ValueOf<S extends SettingSpec> = S extends { type: 'flag' }
  ? boolean
  : S extends { type: 'cidrs' }
    ? string[]
    : S extends { type: 'ip' }
      ? string | undefined
      : S extends { type: 'int' | 'number'; default: number }
        ? number
        : S extends { type: 'int' | 'number' }
          ? number | undefined
          : S extends { type: 'enum'; values: readonly (infer V)[]; default: string }
            ? V
            : S extends { type: 'enum'; values: readonly (infer V)[] }
              ? V | undefined
              : S extends { default: string }
                ? string
                : string | undefined;
