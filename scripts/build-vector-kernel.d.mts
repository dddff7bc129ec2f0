export const SOURCE: string;
export const OUTPUT: string;
/** The module's bytes, compiled from lib/memory/vector-kernel.wat. */
export function compileKernel(): Promise<Buffer>;
