export {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  TransferError,
  type ExportFrame,
  type ExportHeader,
  type TransferErrorCode,
  type TransferProgress,
} from './transfer-format.js';
export { exportFrames, exportedSessions, readSessionRecords } from './session-export.js';
export { readExportFile, writeExportFile } from './export-file.js';
export { importFrames, type SessionImportReport } from './session-import.js';
