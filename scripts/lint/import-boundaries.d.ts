// Types of import-boundaries.js (plain JavaScript so that eslint.config.js loads it without a build).
import type { ESLint, Rule } from 'eslint';

/** The repository root. */
export const ROOT: string;
/** Why `file` may not import `target` (both relative to the repository root), or null. */
export function violation(file: string, target: string): string | null;
/** Why plugin file `file` may not import the package specifier `spec`, or null. */
export function packageViolation(file: string, spec: string): string | null;
export const importBoundaries: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
