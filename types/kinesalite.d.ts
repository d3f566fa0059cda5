// kinesalite ships no type declarations; this covers the part of its API the project uses.
declare module 'kinesalite' {
  import type { Server } from 'node:http';
  interface KinesaliteOptions {
    /** Omitted: kinesalite keeps everything in memory (memdown). */
    path?: string;
    createStreamMs?: number;
    deleteStreamMs?: number;
    updateStreamMs?: number;
    shardLimit?: number;
  }
  function kinesalite(options?: KinesaliteOptions): Server;
  export default kinesalite;
}
