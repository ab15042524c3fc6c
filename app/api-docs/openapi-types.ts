/**
 * The parts of an OpenAPI 3.1 document that the docs page reads. openApiDocument() returns a plain
 * record; these types describe what lib/api/openapi.ts puts in it (JSON Schema 2020-12 for schemas).
 */
export interface JsonSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  description?: string;
  [key: string]: unknown;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface MediaContent {
  [mediaType: string]: { schema?: JsonSchema };
}

export interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: MediaContent };
  responses: Record<string, { description: string; content?: MediaContent }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Partial<Record<"get" | "post" | "put" | "patch" | "delete", Operation>>>;
}
