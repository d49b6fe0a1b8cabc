/** Types of build-stamp.mjs (plain JavaScript, so `npm start` reads it without a TypeScript loader). */
export declare const BUILD_STAMP_FILE: string;
export declare function writeBuildStamp(outDir: string, root: string, inputs: readonly string[]): void;
export declare function isBuildFresh(outDir: string, root: string): boolean;
