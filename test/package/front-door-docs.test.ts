import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './packed-project.js';

/** The functions and classes an entry point exports that have no JSDoc `@example` on their declaration. */
function undocumented(entry: string): { checked: number; missing: string[] } {
  const file = join(repoRoot, 'src', entry);
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  const missing: string[] = [];
  let checked = 0;
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declaration = symbol.declarations?.[0];
    if (!declaration || !(ts.isFunctionDeclaration(declaration) || ts.isClassDeclaration(declaration))) continue;
    checked++;
    if (!ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'example')) missing.push(exported.name);
  }
  return { checked, missing };
}

describe('the front door is documented', () => {
  it.each(['index.ts', 'testing.ts'])('every function and class %s exports has JSDoc with an @example', (entry) => {
    const { checked, missing } = undocumented(entry);
    expect(checked).toBeGreaterThan(entry === 'index.ts' ? 20 : 2);
    expect(missing).toEqual([]);
  });
});
