/**
 * `tsc --noEmit -p tsconfig.json` of a checkout, in-process, checked again after its files change
 * without parsing again what did not: each check builds a new program from the last one
 * (`oldProgram`) over a host that hands back the parsed (and bound) source file of any file whose
 * text is unchanged, so a second check costs the type check and the changed files only. The
 * `tsc` binary run twice parsed the whole program twice (its build info kept no parse).
 */
import ts from 'typescript';

export interface TypeCheckResult {
  readonly ok: boolean;
  /** The diagnostics as `tsc` prints them (paths relative to the checkout). */
  readonly output: string;
}

export interface TypeChecker {
  /** Checks the whole program, or only `files` (paths relative to the checkout) with what they reach. */
  check(files?: readonly string[]): TypeCheckResult;
}

/** A checker of the project `root/tsconfig.json`. */
export function createTypeChecker(root: string): TypeChecker {
  const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
  if (configPath === undefined) throw new Error(`no tsconfig.json in ${root}`);
  const parsed = new Map<string, ts.SourceFile>();
  let program: ts.Program | undefined;

  function host(options: ts.CompilerOptions): ts.CompilerHost {
    const base = ts.createCompilerHost(options);
    return {
      ...base,
      getCurrentDirectory: () => root,
      getSourceFile(fileName, languageVersion, onError, shouldCreate) {
        const text = ts.sys.readFile(fileName);
        const known = parsed.get(fileName);
        if (known !== undefined && known.text === text) return known;
        const file = base.getSourceFile(fileName, languageVersion, onError, shouldCreate);
        if (file !== undefined) parsed.set(fileName, file);
        return file;
      },
    };
  }

  return {
    check(files) {
      const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
      if (config === undefined) throw new Error(`unreadable ${configPath}`);
      const compilerHost = host(config.options);
      const current = ts.createProgram({ rootNames: config.fileNames, options: config.options, host: compilerHost, oldProgram: program });
      program = current;
      const only = files?.map((f) => current.getSourceFile(`${root}/${f}`));
      if (only?.includes(undefined)) throw new Error(`not in the program: ${files?.join(', ')}`);
      const diagnostics = [
        ...config.errors,
        ...current.getConfigFileParsingDiagnostics(),
        ...current.getOptionsDiagnostics(),
        ...current.getGlobalDiagnostics(),
        ...(only === undefined
          ? [...current.getSyntacticDiagnostics(), ...current.getSemanticDiagnostics()]
          : only.flatMap((f) => [...current.getSyntacticDiagnostics(f), ...current.getSemanticDiagnostics(f)])),
      ];
      return { ok: diagnostics.length === 0, output: ts.formatDiagnostics(diagnostics, compilerHost) };
    },
  };
}
