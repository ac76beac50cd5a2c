export {
  BACKEND_GRPC_STATUS,
  ERROR_TABLE,
  isErrorCode,
  RETRYABLE_GRPC_STATUSES,
  type ErrorCode,
  type ErrorMapping,
} from './error-table';
export {
  errorBody,
  errorCodeOf,
  isRetryable,
  type ErrorBody,
  type ErrorReply,
} from './error.codec';
export { bulletList, countOf, fieldPath, issueLine, oneOfMessage } from './error-messages';
export { MeshError } from './mesh.errors';
