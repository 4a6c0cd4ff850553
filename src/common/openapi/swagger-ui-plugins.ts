/*
 * Swagger UI plugins. They run in the browser: nestjs/swagger writes each function into the
 * page's init script (served by us, like the rest of Swagger UI) by its source text, so each
 * one refers to nothing outside itself but the page's globals.
 */

type Element = unknown;
interface PluginSystem {
  specSelectors: { specJson(): { getIn(path: unknown[]): unknown } };
  React: {
    createElement(type: unknown, props: object | null, ...children: unknown[]): Element;
    Fragment: unknown;
  };
}
type Component = (props: { specPath?: { toJS(): unknown[] } }) => Element;

/**
 * Shows an operation's `x-stability` (beta, experimental) as a badge beside its path, so a
 * reader tells unstable operations from stable ones without opening the raw document.
 */
export function stabilityBadgePlugin(): object {
  return {
    wrapComponents: {
      OperationSummaryPath:
        (Original: unknown, system: PluginSystem): Component =>
        (props) => {
          const { React } = system;
          // specPath is ['paths', path, method]: the operation as the document has it.
          const where = props.specPath?.toJS() ?? [];
          const stability =
            where.length > 0
              ? system.specSelectors.specJson().getIn([...where, 'x-stability'])
              : undefined;
          const original = React.createElement(Original, props);
          if (typeof stability !== 'string') return original;
          return React.createElement(
            React.Fragment,
            null,
            original,
            React.createElement(
              'span',
              {
                className: `stability-badge stability-${stability}`,
                title: `x-stability: ${stability}. It may still change.`,
              },
              stability,
            ),
          );
        },
    },
  };
}

/** Swagger UI's own top-bar plugin (the document selector), which a plugins option replaces. */
export function downloadUrlPlugin(system: unknown): unknown {
  const page = globalThis as unknown as {
    SwaggerUIBundle: { plugins: { DownloadUrl(system: unknown): unknown } };
  };
  return page.SwaggerUIBundle.plugins.DownloadUrl(system);
}

/** The badge's look: Swagger UI's own tag colours (inline styles are allowed on /docs). */
export const STABILITY_BADGE_CSS = `
.swagger-ui .stability-badge { margin: 0 10px; padding: 2px 8px; border-radius: 10px;
  font: 700 11px sans-serif; text-transform: uppercase; color: #fff; white-space: nowrap; }
.swagger-ui .stability-beta { background: #7d4cdb; }
.swagger-ui .stability-experimental { background: #c87d0a; }
`;
