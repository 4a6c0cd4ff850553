/** A configuration value that stops the process: the message names the variable. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/** How a variable's text becomes its value (see CONFIG_VARIABLES). */
export interface ValueKind<T> {
  /** What the variable takes, as docs/configuration.md says it. */
  readonly accepts: string;
  /** The value of a set variable's text (trimmed, not empty); a bad one is a ConfigError. */
  parse(text: string, name: string): T;
}

export function wholeNumber(min: number, max: number): ValueKind<number> {
  const range = `a whole number from ${min} to ${max}`;
  return {
    accepts: range,
    parse(text, name) {
      if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
        throw new ConfigError(name, `must be ${range} (got "${text}")`);
      }
      return Number(text);
    },
  };
}

export const trueOrFalse: ValueKind<boolean> = {
  accepts: '`true` or `false` (also `1`/`0`, `yes`/`no`)',
  parse(text, name) {
    const lower = text.toLowerCase();
    if (['true', '1', 'yes'].includes(lower)) return true;
    if (['false', '0', 'no'].includes(lower)) return false;
    throw new ConfigError(name, `must be true or false (got "${lower}")`);
  },
};

/** Any text; `accepts` says what it is for. */
export function text(accepts: string): ValueKind<string> {
  return { accepts, parse: (value) => value };
}

/** Text that must match `pattern`; `problem` completes "must …" in the error. */
export function matching(pattern: RegExp, accepts: string, problem: string): ValueKind<string> {
  return {
    accepts,
    parse(value, name) {
      if (!pattern.test(value)) throw new ConfigError(name, `must be ${problem}`);
      return value;
    },
  };
}

/** An absolute URL whose protocol is one of `protocols` (`'https:'`); kept as written. */
export function url(...protocols: string[]): ValueKind<string> {
  const schemes = protocols.join(' or ');
  return {
    accepts: `a URL (${protocols.map((protocol) => `\`${protocol}\``).join(' or ')})`,
    parse(value, name) {
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        throw new ConfigError(name, 'must be a URL');
      }
      if (!protocols.includes(parsed.protocol)) {
        throw new ConfigError(name, `must be a ${schemes} URL`);
      }
      return value;
    },
  };
}

/** Comma-separated URLs, each as `url(...protocols)` takes it; kept as written, in order. */
export function urlList(...protocols: string[]): ValueKind<string[]> {
  const one = url(...protocols);
  return {
    accepts: `comma-separated URLs (${protocols.map((protocol) => `\`${protocol}\``).join(' or ')})`,
    parse(value, name) {
      const parts = value.split(',').map((part) => part.trim());
      if (parts.some((part) => part === '')) throw new ConfigError(name, 'has an empty entry');
      return parts.map((part) => one.parse(part, name));
    },
  };
}

/** One of `allowed`, in any case. */
export function oneOf<const T extends string>(allowed: readonly T[]): ValueKind<T> {
  const list = allowed.map((value) => `\`${value}\``);
  return {
    accepts: `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`,
    parse(value, name) {
      const lower = value.toLowerCase();
      if (!(allowed as readonly string[]).includes(lower)) {
        throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${lower}")`);
      }
      return lower as T;
    },
  };
}

export const isoDateTime: ValueKind<Date> = {
  accepts: 'an ISO 8601 date-time',
  parse(value, name) {
    const date = new Date(value);
    if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
      throw new ConfigError(name, `must be an ISO 8601 date-time (got "${value}")`);
    }
    return date;
  },
};

/**
 * Comma-separated delays in seconds (decimals allowed, for tests), each at most a week, at most
 * 20 of them; `none` = no delays. The value is in milliseconds.
 */
export const delaysInSeconds: ValueKind<number[]> = {
  accepts:
    'up to 20 comma-separated delays in seconds (decimals allowed), each at most 604800, or `none`',
  parse(value, name) {
    if (value.toLowerCase() === 'none') return [];
    const parts = value.split(',').map((part) => part.trim());
    const valid = (part: string) => /^\d{1,6}(\.\d{1,3})?$/.test(part) && Number(part) <= 604_800;
    if (parts.length > 20 || !parts.every(valid)) {
      throw new ConfigError(
        name,
        `must be up to 20 comma-separated delays in seconds, each at most 604800, or none (got "${value}")`,
      );
    }
    return parts.map((part) => Math.round(Number(part) * 1000));
  },
};

/**
 * Express `trust proxy` values: true/false, a hop count, or a comma-separated list of addresses,
 * subnets and the names loopback, linklocal, uniquelocal. `false` is the same as unset.
 */
export const trustProxy: ValueKind<boolean | number | string | undefined> = {
  accepts:
    '`true`, a hop count, or comma-separated addresses, subnets (`10.0.0.0/8`) and `loopback`, `linklocal`, `uniquelocal`',
  parse(value, name) {
    if (value === 'false') return undefined;
    if (value === 'true') return true;
    if (/^\d+$/.test(value)) return Number(value);
    const entry = /^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)$/;
    const entries = value.split(',').map((part) => part.trim());
    if (
      !entries.every(
        (part) =>
          entry.test(part) && (part.includes('.') || part.includes(':') || !/\d/.test(part)),
      )
    ) {
      throw new ConfigError(
        name,
        `must be true, a hop count, or addresses/subnets/loopback (got "${value}")`,
      );
    }
    return entries.join(',');
  },
};

/** Comma-separated `http(s)` origins, each normalised by URL (`https://app.example.com`). */
export const origins: ValueKind<string[]> = {
  accepts: 'comma-separated `http(s)` origins (`https://app.example.com`)',
  parse(value, name) {
    return value.split(',').map((origin) => {
      const trimmed = origin.trim();
      let parsed: URL;
      try {
        parsed = new URL(trimmed);
      } catch {
        throw new ConfigError(name, `must be a comma-separated list of origins (got "${trimmed}")`);
      }
      if (
        !['http:', 'https:'].includes(parsed.protocol) ||
        parsed.origin !== trimmed.replace(/\/$/, '')
      ) {
        throw new ConfigError(
          name,
          `must list origins like https://app.example.com (got "${trimmed}")`,
        );
      }
      return parsed.origin;
    });
  },
};
