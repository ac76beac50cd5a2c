import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { parseRoutingTableData } from './routing-table.schema';
import { RoutingValidationError } from './routing.errors';
import type { RoutingTableData } from './routing.types';

/** Parses the text of a `mesh.yaml` seed file; `file` names it in error messages. */
export function parseMeshConfig(text: string, file: string): RoutingTableData {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new RoutingValidationError(
      file,
      doc.errors.map((e) => ({ path: '', message: e.message.split('\n')[0] ?? e.message })),
    );
  }
  return parseRoutingTableData(doc.toJS(), file);
}

/** Reads and validates a `mesh.yaml` seed file (`MESH_CONFIG`). */
export async function readMeshConfigFile(file: string): Promise<RoutingTableData> {
  return parseMeshConfig(await readFile(file, 'utf8'), file);
}
