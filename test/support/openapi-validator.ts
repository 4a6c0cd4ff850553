import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { Response } from 'supertest';

interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, SchemaNode>; responses?: Record<string, ResponseEntry> };
}
interface ResponseEntry {
  $ref?: string;
  content?: Record<string, { schema: SchemaNode }>;
}
interface Operation {
  operationId?: string;
  requestBody?: { content?: Record<string, { schema: SchemaNode }> };
  responses: Record<string, ResponseEntry>;
}
type SchemaNode = { [key: string]: unknown };

/**
 * Checks responses against one of the service's own documents (/docs-json, /openapi/v2.json), so the document cannot drift from
 * behaviour: the status must be documented for the operation, and the body must match its
 * schema with no keys beyond the documented ones (docs/api.md says "exactly these keys").
 */
export class OpenApiValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly operations = new Map<string, Operation>();
  private readonly compiled = new Map<string, ValidateFunction>();
  /** The shared responses (components.responses) operations refer to, such as the 431. */
  private readonly sharedResponses: Record<string, ResponseEntry>;

  /** `name`: where the document was read, for the messages. */
  constructor(
    document: OpenApiDocument,
    private readonly name = '/docs-json',
  ) {
    // ajv-formats is CommonJS; its `default` export is the plugin under ESM and TypeScript alike.
    formats.default(this.ajv);
    this.sharedResponses = document.components?.responses ?? {};
    const schemas = structuredClone(document.components?.schemas ?? {});
    for (const schema of Object.values(schemas)) closeObjects(schema);
    this.ajv.addSchema({ $id: 'openapi', components: { schemas } });
    for (const pathItem of Object.values(document.paths)) {
      for (const operation of Object.values(pathItem)) {
        if (operation.operationId) this.operations.set(operation.operationId, operation);
      }
    }
  }

  /** Throws with a readable reason when `body` is not a request body `operationId` takes. */
  checkRequest(operationId: string, body: unknown): void {
    const operation = this.operations.get(operationId);
    const schema = operation?.requestBody?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${operationId} takes no JSON body in ${this.name}`);
    const validate = this.compile(`${operationId}:request`, schema);
    if (!validate(body)) {
      throw new Error(
        `${operationId} request body does not match ${this.name}: ${this.ajv.errorsText(validate.errors)}\n` +
          `body: ${JSON.stringify(body)}`,
      );
    }
  }

  /** Throws with a readable reason when `response` is not what `operationId` documents. */
  check(operationId: string, response: Response): void {
    const operation = this.operations.get(operationId);
    if (!operation) throw new Error(`operation ${operationId} is not in ${this.name}`);
    const entry = operation.responses[String(response.status)];
    const shared = /^#\/components\/responses\/(.+)$/.exec(entry?.$ref ?? '')?.[1];
    const documented = shared === undefined ? entry : this.sharedResponses[shared];
    if (!documented) {
      throw new Error(
        `${operationId} answered ${response.status}, which ${this.name} does not document (body: ${response.text})`,
      );
    }
    const schema = documented.content?.['application/json']?.schema;
    if (!schema) {
      if (response.text)
        throw new Error(
          `${operationId} ${response.status} documents no body but sent "${response.text}"`,
        );
      return;
    }
    const validate = this.compile(`${operationId}:${response.status}`, schema);
    if (!validate(response.body)) {
      throw new Error(
        `${operationId} ${response.status} body does not match ${this.name}: ${this.ajv.errorsText(validate.errors)}\n` +
          `body: ${response.text}`,
      );
    }
  }

  /** The validator of `schema`, compiled once under `key`, objects closed. */
  private compile(key: string, schema: SchemaNode): ValidateFunction {
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      const rooted = rerootRefs(structuredClone(schema));
      closeObjects(rooted);
      validate = this.ajv.compile(rooted);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

/** `#/components/schemas/X` → a reference into the schema registered as `openapi`. */
function rerootRefs(node: SchemaNode): SchemaNode {
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) {
      node[key] = `openapi${value}`;
    } else if (value && typeof value === 'object') {
      rerootRefs(value as SchemaNode);
    }
  }
  return node;
}

function closeObjects(node: SchemaNode): void {
  if (node.type === 'object' && node.properties && node.additionalProperties === undefined) {
    node.additionalProperties = false;
  }
  for (const value of Object.values(node)) {
    if (value && typeof value === 'object') closeObjects(value as SchemaNode);
  }
  rerootRefs(node);
}
