import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

/**
 * Size limits for production code: a file that outgrows one screenful of
 * responsibilities, or a function that outgrows one read, is split along a
 * real seam instead.
 */
export const MAX_FILE_LINES = 300;
export const MAX_FUNCTION_LINES = 80;

/** Production roots: the apps, the shared libs and the dashboard UI. */
export const PRODUCTION_ROOTS = ['apps', 'libs', 'ui'] as const;

export interface Oversize {
  /** Path relative to the scanned root, with forward slashes. */
  readonly path: string;
  /** 1-based line where the file or function starts. */
  readonly line: number;
  readonly lines: number;
  readonly kind: 'file' | 'function';
  /** The function's name where it has one (methods, declarations, named consts). */
  readonly name?: string;
}

const SKIPPED_DIRS = new Set(['node_modules', 'dist']);
const TEST_FILE = /\.(spec|int-spec|e2e-spec)\.ts$/;

/**
 * Test helpers under `testing/` folders ship inside the source tree and are
 * read like any other module, so they count. Generated files are skipped:
 * their size belongs to the generator. None exist today; the marker is the
 * usual first-line banner.
 */
const GENERATED_BANNER = /^\s*(\/\/|\/\*)[^\n]*(@generated|DO NOT EDIT)/i;

export function isProductionSource(fileName: string): boolean {
  return /\.tsx?$/.test(fileName) && !fileName.endsWith('.d.ts') && !TEST_FILE.test(fileName);
}

export function isGenerated(text: string): boolean {
  return GENERATED_BANNER.test(text);
}

/** Every production source file under the given roots, relative to `rootDir`. */
export function listProductionFiles(
  rootDir: string,
  roots: readonly string[] = PRODUCTION_ROOTS,
): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(join(dir, entry.name));
      } else if (entry.isFile() && isProductionSource(entry.name)) {
        files.push(relative(rootDir, join(dir, entry.name)).split('\\').join('/'));
      }
    }
  };
  for (const root of roots) walk(join(rootDir, root));
  return files.sort();
}

/** Lines as `wc -l` counts them: a final line without a newline still counts. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

type FunctionLike =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function functionName(node: FunctionLike): string | undefined {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText();
  // `const handler = () => …` and `{ key: function () … }` take the binding's name.
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText();
  }
  return undefined;
}

/**
 * The file itself when it is over the file limit, and every function-like
 * node over the function limit. A function's length is its line span from
 * its first token (decorators included, leading comments not) to its last.
 */
export function measureSource(path: string, text: string): Oversize[] {
  const found: Oversize[] = [];
  const fileLines = countLines(text);
  if (fileLines > MAX_FILE_LINES) found.push({ path, line: 1, lines: fileLines, kind: 'file' });

  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES) {
        found.push({ path, line: start + 1, lines, kind: 'function', name: functionName(node) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every oversize file and function in the production tree under `rootDir`. */
export function scanProductionTree(rootDir: string): Oversize[] {
  return listProductionFiles(rootDir).flatMap((path) => {
    const text = readFileSync(join(rootDir, path), 'utf8');
    return isGenerated(text) ? [] : measureSource(path, text);
  });
}

export function describeOversize(o: Oversize): string {
  const limit = o.kind === 'file' ? MAX_FILE_LINES : MAX_FUNCTION_LINES;
  const what = o.kind === 'file' ? 'file' : `function ${o.name ?? '(anonymous)'}`;
  return `${o.path}:${o.line} ${what} is ${o.lines} lines (limit ${limit})`;
}
