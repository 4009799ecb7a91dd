// js-md4 ships no types; only what ntlm.ts uses.
declare module 'js-md4' {
  const md4: { arrayBuffer(message: string | ArrayBuffer | Uint8Array): ArrayBuffer };
  export default md4;
}
