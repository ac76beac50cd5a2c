import { MeshError } from '@mesh/errors';

export type ManifestErrorCode = 'MANIFEST_NOT_FOUND' | 'MANIFEST_UNREADABLE' | 'MANIFEST_INVALID';

/** One problem at one field of a manifest, e.g. `tokenizer.sha256`. */
export interface ManifestIssue {
  path: string;
  message: string;
}

/**
 * A version's `preprocess.json` is missing, is not JSON, or does not match the schema. The message
 * names the file and every bad field: `m/2/preprocess.json: tokenizer.sha256: must be 64 hex characters`.
 */
export class ManifestError extends MeshError {
  constructor(
    readonly code: ManifestErrorCode,
    readonly file: string,
    readonly issues: readonly ManifestIssue[],
  ) {
    super(
      `${file}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`,
    );
  }
}
